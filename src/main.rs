// The walk and the parser allocate many small nodes and facts: mimalloc serves them faster than
// the system allocator (the linter's output does not depend on it).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(oomlint::cli::run(std::env::args_os().collect()));
}
