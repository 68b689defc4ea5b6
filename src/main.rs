fn main() {
    std::process::exit(oomlint::cli::run(std::env::args_os().collect()));
}
