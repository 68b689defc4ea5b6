//! The census of calls and the fixed counts it proves, on small projects written inline.

use super::*;
use crate::source::parse_module;

/// The candidates of every module (`(name, text)`: functions holding a finding anywhere) and the
/// parameters found fixed at 1.
fn unit_counts_of(modules: &[(&str, &str)]) -> HashMap<String, Vec<String>> {
    let parsed: Vec<_> = modules
        .iter()
        .map(|(name, text)| (*name, parse_module(text, false)))
        .collect();
    let mut params = Vec::new();
    for (name, module) in &parsed {
        // Every function counts as holding a finding.
        let all: Vec<TextRange> = module.body.iter().map(Ranged::range).collect();
        let nested: Vec<TextRange> = module
            .body
            .iter()
            .filter_map(|s| match s {
                Stmt::ClassDef(c) => Some(c.body.iter().map(Ranged::range)),
                _ => None,
            })
            .flatten()
            .collect();
        let reported: Vec<TextRange> = all.into_iter().chain(nested).collect();
        params.extend(count_params(&module.body, name, &reported));
    }
    let targets = Targets::new(&params);
    let mut project = ProjectCalls::default();
    for (name, module) in &parsed {
        project.add(file_calls(&module.body, name, &targets));
    }
    unit_counts(&params, &project)
}

const AFFINITY: &str = "
class Heads(nn.Module):
    def forward(self, z, multiplicity=1):
        return z.repeat_interleave(multiplicity, 0).float()

class Affinity(nn.Module):
    def __init__(self):
        self.heads = Heads()

    def forward(self, z, multiplicity=1):
        m = z.repeat_interleave(multiplicity, 0).float()
        return self.heads(z, multiplicity=multiplicity)
";

#[test]
fn module_called_with_one_everywhere_is_fixed_through_its_submodule() {
    let model = "
from aff import Affinity

class Model(nn.Module):
    def __init__(self, compile):
        self.a1 = Affinity()
        if compile:
            self.a1 = torch.compile(self.a1, dynamic=False)

    def forward(self, z):
        return self.a1(z, multiplicity=1)
";
    let fixed = unit_counts_of(&[("aff", AFFINITY), ("model", model)]);
    assert_eq!(
        fixed.get("aff.Affinity.forward"),
        Some(&vec!["multiplicity".to_string()])
    );
    assert_eq!(
        fixed.get("aff.Heads.forward"),
        Some(&vec!["multiplicity".to_string()])
    );
}

#[test]
fn another_count_or_an_unread_use_fixes_nothing() {
    let cases = [
        // A call with another count.
        "
class Model(nn.Module):
    def __init__(self):
        self.a1 = Affinity()
    def forward(self, z, n):
        return self.a1(z, multiplicity=1) + self.a1(z, multiplicity=n)
",
        // The module handed elsewhere, where it may be called with anything.
        "
class Model(nn.Module):
    def __init__(self):
        self.a1 = Affinity()
    def forward(self, z):
        run(self.a1)
        return self.a1(z, multiplicity=1)
",
        // Built outside an attribute (a list of modules).
        "
class Model(nn.Module):
    def __init__(self):
        self.blocks = [Affinity() for _ in range(2)]
        self.a1 = Affinity()
    def forward(self, z):
        return self.a1(z, multiplicity=1)
",
        // A `**kwargs` call hides the count.
        "
class Model(nn.Module):
    def __init__(self):
        self.a1 = Affinity()
    def forward(self, z, **kw):
        return self.a1(z, **kw)
",
        // Never called in the project.
        "
class Model(nn.Module):
    def __init__(self):
        self.a1 = Affinity()
",
    ];
    for model in cases {
        let fixed = unit_counts_of(&[("aff", AFFINITY), ("model", model)]);
        assert_eq!(fixed.get("aff.Affinity.forward"), None, "{model}");
    }
}

#[test]
fn method_whose_callers_pass_one_positionally_is_fixed() {
    let code = "
class Pipe:
    def preprocess_masks(self, pipe, masks, dim):
        return [m.repeat(1, dim, 1, 1).to(pipe.device) for m in masks]

    def inputs(self, pipe, masks):
        return self.preprocess_masks(pipe, masks, 1)
";
    let fixed = unit_counts_of(&[("pipe", code)]);
    assert_eq!(
        fixed.get("pipe.Pipe.preprocess_masks"),
        Some(&vec!["dim".to_string()])
    );
    // A local variable of the same name may hold the method: no value is claimed.
    let shadowed = code
        .replace("masks", "shadow")
        .replace("preprocess_shadow", "shadow");
    assert!(
        unit_counts_of(&[("pipe", &shadowed)]).is_empty(),
        "{shadowed}"
    );
}

#[test]
fn function_passed_as_a_value_or_called_with_a_name_is_not_fixed() {
    let code = "
def tile(x, n):
    return x.repeat(n, 1).float()

def use(x, k):
    a = tile(x, 1)
    b = tile(x, k)
    return a, b
";
    assert!(unit_counts_of(&[("m", code)]).is_empty());
    let callback = "
def tile(x, n):
    return x.repeat(n, 1).float()

def use(x):
    apply(tile)
    return tile(x, 1)
";
    assert!(unit_counts_of(&[("m", callback)]).is_empty());
    // A string or a comment naming it is no use.
    let named = "
def tile(x, n):
    return x.repeat(n, 1).float()

def use(x):
    print('tile')  # tile
    return tile(x, 1)
";
    assert_eq!(
        unit_counts_of(&[("m", named)]).get("m.tile"),
        Some(&vec!["n".to_string()])
    );
}

#[test]
fn the_default_counts_for_a_call_that_leaves_it_out() {
    let code = "
def tile(x, n=1):
    return x.repeat(n, 1).float()

def use(x):
    return tile(x) + tile(x, n=1)
";
    assert_eq!(
        unit_counts_of(&[("m", code)]).get("m.tile"),
        Some(&vec!["n".to_string()])
    );
    let rebound = "
def tile(x, n=1):
    n = n * 2
    return x.repeat(n, 1).float()

def use(x):
    return tile(x)
";
    assert!(unit_counts_of(&[("m", rebound)]).is_empty());
    // Registered by a decorator: called by name from anywhere.
    let registered = code.replace("def tile(", "@register('tile')\ndef tile(");
    assert!(
        unit_counts_of(&[("m", &registered)]).is_empty(),
        "{registered}"
    );
}
