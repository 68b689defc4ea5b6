//! Table-driven tests of the shape functions: each case is a line of Python, parsed with the
//! crate's own parser, and the shape (or answer) it should give.

use super::*;
use crate::source::parse_module;

/// Parses one expression statement and hands its expression (and the text its ranges index) to `f`.
fn with_expr<R>(code: &str, f: impl FnOnce(&Expr, &str) -> R) -> R {
    let parsed = parse_module(code, false);
    assert!(parsed.syntax_errors.is_empty(), "bad test input: {code}");
    match parsed.body.as_slice() {
        [ast::Stmt::Expr(e)] => f(&e.value, code),
        _ => panic!("not one expression: {code}"),
    }
}

/// Runs `f` on the call `code`, its method (or function) name and its positional arguments.
fn with_call<R>(code: &str, f: impl FnOnce(&ast::ExprCall, &str, &[&Expr], &str) -> R) -> R {
    with_expr(code, |expr, text| {
        let Expr::Call(call) = expr else {
            panic!("not a call: {code}")
        };
        let name = match &*call.func {
            Expr::Attribute(a) => a.attr.id.to_string(),
            Expr::Name(n) => n.id.to_string(),
            _ => panic!("no name: {code}"),
        };
        let args: Vec<&Expr> = call.arguments.args.iter().collect();
        f(call, &name, &args, text)
    })
}

/// A shape written as a Python list (`[b, 1, d]`); `_` is a dim of unknown size.
fn shape(list: &str) -> Shape {
    with_expr(list, |expr, text| {
        let Expr::List(l) = expr else {
            panic!("not a list: {list}")
        };
        Shape(
            l.elts
                .iter()
                .map(|e| match e {
                    Expr::Name(n) if n.id.as_str() == "_" => Dim::Unknown,
                    other => Dim::Size(sym_expr(other, text)),
                })
                .collect(),
        )
    })
}

fn show(shape: Option<Shape>) -> String {
    shape.map_or_else(|| "none".to_string(), |s| s.to_string())
}

/// What an enlarger call (receiver `x`) gives for a source of shape `source`.
fn enlarged(code: &str, source: Option<&str>) -> String {
    let source = source.map(shape);
    with_call(code, |call, op, args, text| {
        match enlarger_sizes(op, args, call, text, "x") {
            Sizes::NotEnlarging => "not enlarging".to_string(),
            Sizes::LikeOther => "like other".to_string(),
            Sizes::Unknown => "unknown".to_string(),
            Sizes::Dims(dims) => {
                if op.starts_with("expand") || op == "broadcast_to" {
                    show(expand_shape(&dims, source.as_ref()))
                } else {
                    show(repeat_shape(op, &dims, source.as_ref()))
                }
            }
        }
    })
}

#[test]
fn enlarger_shapes() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        // expand: -1 keeps the source's dim, aligned from the right.
        ("x.expand(b, -1, s)", Some("[1, d, 1]"), "[b, d, s]"),
        ("x.expand(4, -1)", Some("[d]"), "[4, d]"),
        ("x.expand(b, -1)", None, "[b, *]"),
        ("x.expand((b, 4, d))", None, "[b, 4, d]"),
        ("x.expand([n, d])", Some("[1, d]"), "[n, d]"),
        ("x.expand(-1, -1)", None, "not enlarging"),
        ("x.expand(1, 1, -1)", None, "not enlarging"),
        ("x.expand(y.shape)", None, "like other"),
        ("x.expand(*y.shape)", None, "like other"),
        ("x.expand(x.size())", None, "not enlarging"),
        ("x.expand(shape)", None, "unknown"),
        ("x.expand(target_shape)", None, "unknown"),
        ("x.expand(size)", None, "unknown"),
        ("x.expand(x.shape[1:])", None, "unknown"),
        ("x.expand((b, 1) + s)", None, "unknown"),
        // One plain size: a 1-d result.
        ("x.expand(batch_size)", None, "[batch_size]"),
        ("x.expand(sample.shape[0])", None, "[sample.shape[0]]"),
        ("x.expand(latents.size(0))", None, "[latents.size(0)]"),
        ("x.expand(len(prompts))", None, "[len(prompts)]"),
        ("x.expand(b * n)", None, "[b*n]"),
        ("x.expand(*sizes)", None, "unknown"),
        ("x.expand_as(y)", None, "like other"),
        ("x.expand_as(x)", None, "not enlarging"),
        // repeat: counts multiply the aligned source dims; extra counts add leading dims.
        ("x.repeat(2, 1)", Some("[1, d]"), "[2, d]"),
        ("x.repeat(b, 3)", Some("[n, 1]"), "[b*n, 3]"),
        ("x.repeat(4, 1, 1)", Some("[d, s]"), "[4, d, s]"),
        ("x.repeat(2, 2)", Some("[_, d]"), "[*, 2*d]"),
        ("x.repeat(2)", Some("[a, c]"), "none"),
        ("x.repeat(b, 2)", None, "none"),
        ("x.tile((2, 1))", Some("[1, d]"), "[2, d]"),
        ("x.repeat(1, 1)", Some("[a, c]"), "not enlarging"),
        ("x.repeat_interleave(1)", None, "not enlarging"),
        ("x.repeat_interleave(repeats=1)", None, "not enlarging"),
        ("x.repeat_interleave(n, dim=0)", None, "unknown"),
        ("x.repeat_interleave()", None, "not enlarging"),
    ];
    for (code, source, want) in cases {
        assert_eq!(enlarged(code, *source), *want, "{code} on {source:?}");
    }
}

/// A repeat call, its source shape, the dims known to be 1 when the rank is not known, and the
/// `expand` arguments that would do instead.
type RepeatCase<'a> = (&'a str, Option<&'a str>, &'a [i64], Option<&'a str>);

#[test]
fn repeat_as_expand() {
    let cases: &[RepeatCase] = &[
        (
            "x.repeat(1, n, 1)",
            Some("[b, 1, d]"),
            &[],
            Some("-1, n, -1"),
        ),
        ("x.repeat(b, 1)", Some("[1, d]"), &[], Some("b, -1")),
        ("x.repeat(2, 3)", Some("[1, d]"), &[], None),
        ("x.repeat(n, 1)", None, &[0], Some("n, -1")),
        ("x.repeat(n, 1)", None, &[-2], Some("n, -1")),
        ("x.repeat(1, n)", None, &[0], None),
        ("x.repeat(n, 1)", None, &[], None),
        ("x.repeat(n, 1, 1)", Some("[1, d]"), &[], Some("n, -1, -1")),
        ("x.repeat(n, 2, 1)", Some("[1, d]"), &[], Some("n, 2, -1")),
        ("x.repeat(n, 1)", None, &[5], None),
    ];
    for (code, source, unit_dims, want) in cases {
        let source = source.map(shape);
        let got = with_call(code, |call, op, args, text| {
            let Sizes::Dims(dims) = enlarger_sizes(op, args, call, text, "x") else {
                panic!("no dims: {code}")
            };
            repeat_as_expand_args(&dims, source.as_ref(), unit_dims)
        });
        assert_eq!(got.as_deref(), *want, "{code} on {source:?} {unit_dims:?}");
    }
}

#[test]
fn view_shapes() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("x.unsqueeze(1)", Some("[b, d]"), "[b, 1, d]"),
        ("x.unsqueeze(-1)", Some("[b, d]"), "[b, d, 1]"),
        ("x.unsqueeze(5)", Some("[b, d]"), "none"),
        ("x.transpose(0, 1)", Some("[a, b, c]"), "[b, a, c]"),
        ("x.swapaxes(-1, -2)", Some("[a, b, c]"), "[a, c, b]"),
        ("x.squeeze()", Some("[1, d, 1]"), "[d]"),
        ("x.squeeze(0)", Some("[1, d]"), "[d]"),
        ("x.squeeze(1)", Some("[1, d]"), "[1, d]"),
        ("x.permute(2, 0, 1)", Some("[a, b, c]"), "[c, a, b]"),
        ("x.permute((1, 0))", Some("[a, b]"), "[b, a]"),
        ("x.permute(1, 0)", Some("[a, b, c]"), "none"),
        ("x.view(b, -1)", None, "[b, *]"),
        ("x.view(1, -1, 1)", Some("[n]"), "[1, n, 1]"),
        ("x.view(b, -1)", Some("[b, s, d]"), "[b, s*d]"),
        ("x.reshape(-1)", Some("[1, n]"), "[n]"),
        ("x.view(c, -1)", Some("[b, s]"), "[c, *]"),
        ("x.view(b, -1)", Some("[b, _]"), "[b, *]"),
        ("x.view(-1, -1)", Some("[a, b]"), "[*, *]"),
        ("x.reshape((b, s * h))", None, "[b, s*h]"),
        ("x.view(*shape)", None, "none"),
        ("x.view(torch.float16)", None, "none"),
        ("x.detach()", Some("[a, b]"), "[a, b]"),
        ("x.flatten()", Some("[a, b]"), "none"),
    ];
    for (code, source, want) in cases {
        let source = source.map(shape);
        let got = with_call(code, |_, op, args, text| {
            view_shape(op, args, source.as_ref(), text)
        });
        assert_eq!(show(got), *want, "{code} on {source:?}");
    }
    // `.T` and `.mT` are attributes, not calls.
    assert_eq!(
        show(view_shape("T", &[], Some(&shape("[a, b, c]")), "")),
        "[c, b, a]"
    );
    assert_eq!(
        show(view_shape("mT", &[], Some(&shape("[a, b, c]")), "")),
        "[a, c, b]"
    );
    assert_eq!(show(view_shape("mT", &[], Some(&shape("[a]")), "")), "none");
}

#[test]
fn view_merges() {
    // (call, rank of the receiver, does it merge dims) for flatten.
    let flatten: &[(&str, Option<usize>, Option<bool>)] = &[
        ("x.flatten()", Some(3), Some(true)),
        ("x.flatten()", Some(1), Some(false)),
        ("x.flatten(2)", Some(3), Some(false)),
        ("x.flatten(0, 1)", Some(3), Some(true)),
        ("x.flatten(-2)", Some(3), Some(true)),
        ("x.flatten(-1)", Some(3), Some(false)),
        ("x.flatten(n)", Some(3), None),
        ("x.flatten()", None, None),
    ];
    for (code, rank, want) in flatten {
        let got = with_call(code, |_, _, args, _| flatten_merges(args, *rank));
        assert_eq!(got, *want, "{code} rank {rank:?}");
    }
    // How many dims a view/reshape asks for.
    let counts: &[(&str, Option<usize>)] = &[
        ("x.view(b, s, h)", Some(3)),
        ("x.view((b, -1))", Some(2)),
        ("x.reshape([b, s, -1])", Some(3)),
        ("x.view(n)", Some(1)),
        ("x.view(b * s)", Some(1)),
        ("x.view(*s)", None),
        ("x.view((b, *rest))", None),
        ("x.view(y.shape)", None),
    ];
    for (code, want) in counts {
        let got = with_call(code, |_, _, args, _| size_arg_count(args));
        assert_eq!(got, *want, "{code}");
    }
}

#[test]
fn index_shapes() {
    let cases: &[(&str, Option<&str>, &str)] = &[
        ("x[:, None]", Some("[b, d]"), "[b, 1, d]"),
        ("x[None]", Some("[b, d]"), "[1, b, d]"),
        ("x[..., None]", Some("[b, s, d]"), "[b, s, d, 1]"),
        ("x[None, ..., 0]", Some("[b, s, d]"), "[1, b, s]"),
        ("x[0]", Some("[b, d]"), "[d]"),
        ("x[:, 1:]", Some("[b, d]"), "[b, *]"),
        ("x[:, None, None, :]", None, "[*, 1, 1, *]"),
        ("x[..., None]", None, "none"),
        ("x[idx]", Some("[b, d]"), "none"),
        ("x[..., None, ...]", Some("[b, d]"), "none"),
        ("x[0, 0, 0]", Some("[b, d]"), "none"),
        ("x[-1]", Some("[b, d]"), "[d]"),
        // Integers alone on an unknown rank: nothing known (not a 0-d tensor).
        ("x[1]", None, "none"),
        ("x[0]", Some("[d]"), "[]"),
    ];
    for (code, source, want) in cases {
        let source = source.map(shape);
        let got = with_expr(code, |expr, _| {
            let Expr::Subscript(s) = expr else {
                panic!("not a subscript: {code}")
            };
            let kinds: Vec<Index> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().map(classify_index).collect(),
                other => vec![classify_index(other)],
            };
            index_shape(&kinds, source.as_ref(), None)
        });
        assert_eq!(show(got), *want, "{code} on {source:?}");
    }
}

#[test]
fn index_shapes_name_the_kept_dims_of_a_plain_name() {
    let cases: &[(&str, &str)] = &[
        (
            "attention_mask[:, None, None, :]",
            "[attention_mask.shape[0], 1, 1, attention_mask.shape[1]]",
        ),
        // A partial slice keeps at most the dim's size: still unknown.
        ("x[:, None, 1:]", "[x.shape[0], 1, *]"),
        ("x[..., None]", "none"),
        ("ids[None, None, :]", "[1, 1, *]"),
        ("rel_pos[None, None, :, :]", "[1, 1, *, *]"),
    ];
    for (code, want) in cases {
        let got = with_expr(code, |expr, _| {
            let Expr::Subscript(s) = expr else {
                panic!("not a subscript: {code}")
            };
            let kinds: Vec<Index> = match &*s.slice {
                Expr::Tuple(t) => t.elts.iter().map(classify_index).collect(),
                other => vec![classify_index(other)],
            };
            let name = code.split('[').next();
            index_shape(&kinds, None, name)
        });
        assert_eq!(show(got), *want, "{code}");
    }
}

#[test]
fn slices_that_take_one_element() {
    let cases: &[(&str, bool)] = &[
        ("x[:1]", true),
        ("x[2:3]", true),
        ("x[-1:]", true),
        ("x[0:0]", true),
        ("x[1:]", false),
        ("x[:2]", false),
        ("x[::2]", false),
        ("x[:n]", false),
        ("x[0]", false),
    ];
    for (code, want) in cases {
        let got = with_expr(code, |expr, _| {
            let Expr::Subscript(s) = expr else {
                panic!("not a subscript: {code}")
            };
            slice_takes_one(&s.slice)
        });
        assert_eq!(got, *want, "{code}");
    }
}

#[test]
fn factory_shapes() {
    let cases: &[(&str, &str)] = &[
        ("torch.ones(b, s)", "[b, s]"),
        ("torch.zeros((2, d))", "[2, d]"),
        ("torch.empty([n * h, 64])", "[n*h, 64]"),
        ("torch.rand(self.hidden)", "[hidden]"),
        ("torch.ones(x.shape)", "none"),
        ("torch.ones(*x.shape)", "none"),
        ("torch.ones(x.size())", "none"),
        ("torch.empty()", "none"),
    ];
    for (code, want) in cases {
        let got = with_call(code, |_, _, args, text| factory_shape(args, text));
        assert_eq!(show(got), *want, "{code}");
    }
}

#[test]
fn symbolic_sizes() {
    let cases: &[(&str, &str)] = &[
        ("b * h", "b*h"),
        ("(a + b) * c", "(a + b)*c"),
        ("n - 1", "n - 1"),
        ("n // 2", "n//2"),
        ("self.hidden", "hidden"),
        ("config.model.dim", "dim"),
        ("-3", "-3"),
        ("f(x)", "f(x)"),
        ("n % 2", "n % 2"),
        ("x.shape[0]", "x.shape[0]"),
        ("2.5", "2.5"),
    ];
    for (code, want) in cases {
        let got = with_expr(code, |expr, text| sym_expr(expr, text).to_string());
        assert_eq!(got, *want, "{code}");
    }
}

#[test]
fn integer_literals() {
    let cases: &[(&str, Option<i64>)] = &[
        ("3", Some(3)),
        ("-1", Some(-1)),
        ("--2", Some(2)),
        ("1.0", None),
        ("n", None),
        ("+1", None),
    ];
    for (code, want) in cases {
        let got = with_expr(code, |expr, _| literal_int(expr));
        assert_eq!(got, *want, "{code}");
    }
}

#[test]
fn repeated_list_elements() {
    // (first argument of torch.cat, the repeated element, the repeat count)
    let cases: &[(&str, Option<&str>, Option<&str>)] = &[
        ("[x] * n", Some("x"), Some("n")),
        ("3 * (x,)", Some("x"), Some("3")),
        ("[x, x, x]", Some("x"), None),
        ("[self.w, self.w]", Some("self.w"), None),
        ("[x, y]", None, None),
        ("[f(), f()]", None, None),
        ("[x, y] * 2", None, Some("2")),
        ("[x]", None, None),
    ];
    let code_of = |e: &Expr, text: &str| text[e.range().to_std_range()].to_string();
    for (code, element, count) in cases {
        let got = with_expr(code, |expr, text| {
            (
                repeated_list_element(expr, text).map(|e| code_of(e, text)),
                list_repeat_count(expr).map(|e| code_of(e, text)),
            )
        });
        assert_eq!(got.0.as_deref(), *element, "{code}");
        assert_eq!(got.1.as_deref(), *count, "{code}");
    }
}

#[test]
fn collapsed_code() {
    let cases: &[(&str, &str)] = &[
        ("x.expand(b, s)", "x.expand(b, s)"),
        ("x.expand(\n    b,  # batch\n    s,\n)", "x.expand(b, s,)"),
        (
            "x\n    .repeat(2, 1)\n    .float()",
            "x.repeat(2, 1).float()",
        ),
        ("x.to('#cuda')", "x.to('#cuda')"),
        ("  \n  ", ""),
    ];
    for (code, want) in cases {
        assert_eq!(collapse_code(code), *want, "{code:?}");
    }
}

#[test]
fn shape_keeping_enlargers() {
    let ones = |name: &str| name == "N_REP";
    for (code, keeps) in [
        ("x.repeat(1, *[1] * (k - 1))", true),
        ("x.repeat((1,) * k)", true),
        ("x.repeat(N_REP, 1)", true),
        ("x.repeat(1, [1] * k)", true),
        ("x.repeat(2, *[1] * k)", false),
        ("x.repeat(n, 1)", false),
    ] {
        let got = with_call(code, |_, _, args, _| repeat_counts_all_one(args, &ones));
        assert_eq!(got, keeps, "{code}");
    }
    for (code, rank, keeps) in [
        ("x.expand(x.size(0), -1)", None, true),
        ("x.expand(x.shape[0], -1)", Some(2), true),
        ("x.expand(-1, x.shape[-1])", None, true),
        ("x.expand(x.size(0), -1)", Some(1), false),
        ("x.expand(y.size(0), -1)", None, false),
        ("x.expand(x.size(1), -1)", None, false),
        ("x.expand(-1, -1)", None, false),
    ] {
        let got = with_call(code, |_, _, args, text| {
            expand_keeps_own_dims(args, "x", rank, text)
        });
        assert_eq!(got, keeps, "{code}");
    }
    for (code, keeps) in [
        ("torch.ones_like(y)", true),
        ("(y > 0)", true),
        ("1 - y", true),
        ("y.float()", true),
        ("y.abs()", true),
        ("torch.ones_like(z)", false),
        ("z @ y", false),
        ("z.float()", false),
    ] {
        let got = with_expr(code, |expr, text| has_shape_of(expr, "y", text));
        assert_eq!(got, keeps, "{code}");
    }
}

/// The sizes an enlarger call grows (receiver `x` unless the call says otherwise), joined by
/// `, `; `none` when its arguments do not say.
fn growth(code: &str, recv: &str, source: Option<&str>) -> String {
    let source = source.map(shape);
    with_call(code, |call, op, args, text| {
        let op = if op == "cat" { "cat" } else { op };
        match enlarger_growth(op, args, call, text, recv, source.as_ref()) {
            Some(sizes) => sizes
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            None => "none".to_string(),
        }
    })
}

#[test]
fn enlargement_growth() {
    // (call, receiver code, source shape, the sizes it grows)
    let cases: &[(&str, &str, Option<&str>, &str)] = &[
        ("x.repeat(batch_size, 1, 1)", "x", None, "batch_size"),
        ("x.repeat((1, n, 1))", "x", None, "n"),
        ("x.repeat(1, 1, h.shape[-1])", "x", None, "h.shape[-1]"),
        ("x.expand(b, -1, -1)", "x", None, "b"),
        ("x.expand(b, s, d)", "x", Some("[1, s, d]"), "b"),
        ("x.expand(b, s, d)", "x", None, "b, s, d"),
        ("x.expand(b, *x.shape)", "x.unsqueeze(0)", None, "b"),
        ("x.expand(b, *x.shape[1:])", "x[:1]", None, "b"),
        ("x.expand(-1, *noise.shape[1:])", "t", None, "none"),
        ("x.expand(*batch_dims, -1, -1)", "x", None, "*batch_dims"),
        (
            "x.expand(*self.batch_shape, n, n)",
            "x",
            None,
            "*self.batch_shape, n, n",
        ),
        ("x.expand(*other.shape, -1)", "x", None, "none"),
        ("x.expand(other.shape)", "x", None, "none"),
        ("x.expand_as(y)", "x", None, "none"),
        // A broadcast to another tensor's shape grows only the source's size-1 dims: a lone
        // leading one grows to the target's first size.
        ("x.expand_as(y)", "x", Some("[1, s]"), "y.shape[0]"),
        ("x.expand(y.size())", "x", Some("[1, s, d]"), "y.shape[0]"),
        (
            "x.expand(input_shape)",
            "x",
            Some("[1, s]"),
            "input_shape[0]",
        ),
        ("x.expand_as(y)", "x", Some("[s, 1]"), "none"),
        ("x.expand_as(y)", "x", Some("[1, 1, s]"), "none"),
        ("x.expand(shape)", "x", Some("[1, 1]"), "none"),
        ("x.repeat_interleave(2, dim=0)", "x", None, "2"),
        ("torch.cat([latents] * 2)", "latents", None, "2"),
        ("torch.cat([a, a, a])", "a", None, "3"),
    ];
    for (code, recv, source, want) in cases {
        assert_eq!(growth(code, recv, *source), *want, "{code}");
    }
}

#[test]
fn einops_repeat_patterns() {
    let keep = |i: usize, n: &str| EinopsAxis::Keep(i, n.to_string());
    let new = |n: &str| EinopsAxis::New(n.to_string());
    let cases: &[(&str, Option<EinopsRepeat>)] = &[
        (
            "b n -> b h n",
            Some(EinopsRepeat {
                view: true,
                out: Some(vec![keep(0, "b"), new("h"), keep(1, "n")]),
            }),
        ),
        (
            "b q k -> b h q k",
            Some(EinopsRepeat {
                view: true,
                out: Some(vec![keep(0, "b"), new("h"), keep(1, "q"), keep(2, "k")]),
            }),
        ),
        (
            "h -> b h i 1",
            Some(EinopsRepeat {
                view: true,
                out: Some(vec![new("b"), keep(0, "h"), new("i"), EinopsAxis::Unit]),
            }),
        ),
        (
            "b n -> (b h) n",
            Some(EinopsRepeat {
                view: false,
                out: None,
            }),
        ),
        (
            "... n -> ... h n",
            Some(EinopsRepeat {
                view: true,
                out: None,
            }),
        ),
        // No new axis: a permutation, not a repeat.
        ("b n -> n b", None),
        ("b n -> b 1 n", None),
        ("(b h) n -> b h n", None),
        ("not a pattern", None),
        ("b (n -> b n", None),
    ];
    for (pattern, want) in cases {
        assert_eq!(&einops_repeat_pattern(pattern), want, "{pattern}");
    }
}

#[test]
fn arange_lengths() {
    let cases: &[(&str, &str)] = &[
        ("torch.arange(n)", "n"),
        ("torch.arange(0, seq_len)", "seq_len"),
        ("torch.arange(1, self.ssm_state_size + 1)", "ssm_state_size"),
        ("torch.arange(start, end)", "end - start"),
        ("torch.arange(0, n, 1)", "n"),
        ("torch.arange(0, 10, 3)", "4"),
        ("torch.arange(0, n, 2)", "(n + 1)//2"),
        ("torch.arange(n, device=x.device, dtype=torch.long)", "n"),
        ("torch.arange(end=n)", "n"),
        ("torch.arange(2, n, step=2)", "(n - 2 + 1)//2"),
        ("torch.arange(0, n, s)", "*"),
        ("torch.arange(0.0, 1.0, 0.1)", "*"),
        ("torch.arange(n, 0, -1)", "*"),
        ("torch.arange()", "none"),
    ];
    for (code, want) in cases {
        let got = with_call(code, |call, _, args, text| {
            arange_dim(args, call, text).map_or_else(|| "none".to_string(), |d| d.to_string())
        });
        assert_eq!(got, *want, "{code}");
    }
}

#[test]
fn operand_lacking_grown_dims() {
    // (source, target, other, the op could run on the source first and stay smaller)
    let cases: &[(&str, &str, &str, bool)] = &[
        ("[b, 1, q, k]", "[b, h, q, k]", "[1, 1, q, k]", true),
        ("[b, 1, q, k]", "[b, h, q, k]", "[q, k]", true),
        ("[b, 1, 1, k]", "[b, h, q, k]", "[1, 1, q, k]", true),
        // The other operand has every grown dim: full size in any order.
        ("[b, 1, 1, k]", "[b, h, q, k]", "[b, h, q, k]", false),
        ("[b, 1, q, k]", "[b, h, q, k]", "[1, h, q, k]", false),
        // Wider than the target where the target is 1: the result is larger still.
        ("[b, 1, 1, k]", "[b, h, 1, k]", "[1, 1, q, k]", false),
        // An unknown source dim is not taken to be 1.
        ("[_, _, q, k]", "[b, h, q, k]", "[1, 1, q, k]", false),
        ("[k]", "[b, q, k]", "[q, 1]", true),
    ];
    for (source, target, other, want) in cases {
        assert_eq!(
            operand_lacks_grown_dims(&shape(source), &shape(target), &shape(other)),
            *want,
            "{source} -> {target} with {other}"
        );
    }
}

#[test]
fn repeat_interleave_shapes_with_tensor_repeats() {
    // The method form: the arguments after the receiver are (repeats, dim).
    let cases: &[(&str, Option<&str>, &str)] = &[
        // Without `dim` the input is flattened: 1-d, told only for a source of at most one dim.
        ("x.repeat_interleave(lengths)", Some("[n]"), "[*]"),
        (
            "x.repeat_interleave(lengths, output_size=total)",
            Some("[n]"),
            "[total]",
        ),
        ("x.repeat_interleave(lengths)", Some("[b, d]"), "none"),
        ("x.repeat_interleave(lengths)", None, "none"),
        // With `dim`, that dim grows and the others stay.
        (
            "x.repeat_interleave(lengths, dim=0)",
            Some("[b, d]"),
            "[*, d]",
        ),
        (
            "x.repeat_interleave(lengths, 1)",
            Some("[b, s, d]"),
            "[b, *, d]",
        ),
        (
            "x.repeat_interleave(lengths, dim=-1, output_size=t)",
            Some("[b, d]"),
            "[b, t]",
        ),
        (
            "x.repeat_interleave(lengths, dim=2)",
            Some("[b, d]"),
            "none",
        ),
        (
            "x.repeat_interleave(lengths, dim=k)",
            Some("[b, d]"),
            "none",
        ),
    ];
    for (code, source, want) in cases {
        let source = source.map(shape);
        let got = with_call(code, |call, _, args, text| {
            repeat_interleave_shape(args, call, source.as_ref(), text)
        });
        assert_eq!(show(got), *want, "{code} on {source:?}");
    }
}
