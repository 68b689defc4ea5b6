//! `torch.arange` with a step: one dim of `ceil((end - start) / step)` elements for a positive
//! integer step, so the enlarged shape and its size are known as with one or two arguments; any
//! other step still gives one dim, of a size the message does not make up.

use crate::common::*;

fn messages(dim: &[&str]) -> Vec<String> {
    let root = repo();
    let mut args = vec![
        "check",
        "testdata/arange/positive_arange_step.py",
        "--isolated",
        "--min-static-bytes",
        "0",
        "--output-format",
        "concise",
    ];
    args.extend_from_slice(dim);
    let out = run_in(&root, &args, None);
    stdout(&out)
        .lines()
        .filter(|l| l.contains("OOM101"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_stepped_arange_has_its_length_in_the_enlarged_shape() {
    let lines = messages(&[]);
    assert_eq!(lines.len(), 3, "{lines:?}");
    assert!(lines[0].contains("[b, (n + 1)//2]"), "{}", lines[0]);
    assert!(lines[1].contains("[b, (n - 1 + 3)//4]"), "{}", lines[1]);
    // A step by name: one dim, size unknown.
    assert!(lines[2].contains("[b, *]"), "{}", lines[2]);
}

#[test]
fn the_stepped_length_evaluates_with_bound_dims() {
    let out = run_in(
        &repo(),
        &[
            "check",
            "testdata/arange/positive_arange_step.py",
            "--isolated",
            "--dim",
            "n=65536",
            "--dim",
            "b=4096",
            "--output-format",
            "json",
        ],
        None,
    );
    let text = stdout(&out);
    // 4096 x 32768 float32 elements: 512 MiB, where the two-argument form would say 1 GiB.
    assert!(text.contains("536870912"), "{text}");
}
