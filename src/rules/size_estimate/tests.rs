use super::classes::{batch_like, small_config_factor};
use super::*;

fn shape(dims: &[&str]) -> Shape {
    Shape(
        dims.iter()
            .map(|d| match (*d, d.parse::<i64>()) {
                ("*", _) => Dim::Unknown,
                (_, Ok(n)) => Dim::Size(SymExpr::Num(n)),
                (name, _) => Dim::Size(SymExpr::Var(name.to_string())),
            })
            .collect(),
    )
}

#[test]
fn roles_from_names() {
    let cases: &[(&str, &[&str], DimRole)] = &[
        ("batch_size", &[], DimRole::Batch),
        ("bsz", &[], DimRole::Batch),
        ("b", &[], DimRole::Batch),
        ("self.num_heads", &[], DimRole::Heads),
        ("num_attention_heads", &[], DimRole::Heads),
        ("num_key_value_heads", &[], DimRole::Heads),
        ("h", &["b", "h", "q", "k"], DimRole::Heads),
        ("h", &["b", "h", "w"], DimRole::Spatial),
        ("h", &["b", "1", "h", "w"], DimRole::Spatial),
        // A side of a hidden-size feature map is a side of a feature grid, not of an image.
        ("h", &["b", "channels", "h", "w"], DimRole::Grid),
        // One letter for channels says nothing (audio 1-2, images 3, features hundreds).
        ("c", &[], DimRole::Unknown),
        ("ch", &[], DimRole::Unknown),
        ("C", &["B", "C", "T"], DimRole::Unknown),
        ("F_dim", &[], DimRole::Unknown),
        ("n_group", &[], DimRole::Count),
        ("topk", &[], DimRole::Count),
        (
            "height",
            &["batch_size", "channels", "height"],
            DimRole::Grid,
        ),
        (
            "channels",
            &["batch_size", "channels", "height"],
            DimRole::Hidden,
        ),
        // Latents.
        ("latent_h", &[], DimRole::Latent),
        ("latent_length", &[], DimRole::Latent),
        ("num_latent_frames", &[], DimRole::Latent),
        ("latent_image_id_channels", &[], DimRole::Latent),
        ("latents.shape[-1]", &[], DimRole::Latent),
        ("image_latents.size(2)", &[], DimRole::Latent),
        ("latent_dim", &[], DimRole::Hidden),
        ("d_latents", &[], DimRole::Unknown),
        ("num_audios", &[], DimRole::Count),
        ("max_objs", &[], DimRole::Count),
        ("head_dim", &[], DimRole::Hidden),
        ("hidden_size", &[], DimRole::Hidden),
        ("embed_dim", &[], DimRole::Hidden),
        ("q_len", &[], DimRole::Sequence),
        ("tgt_len", &[], DimRole::Sequence),
        ("total_seq_len", &[], DimRole::Sequence),
        ("kv_seq_len", &[], DimRole::Sequence),
        ("seqLen", &[], DimRole::Sequence),
        ("height", &[], DimRole::Spatial),
        ("llm_grid_h", &[], DimRole::Grid),
        ("grid_t", &[], DimRole::Grid),
        ("num_patches", &[], DimRole::Sequence),
        ("n_patches", &[], DimRole::Sequence),
        ("patch_size", &[], DimRole::Spatial),
        ("vocab_size", &[], DimRole::Vocabulary),
        ("num_classes", &[], DimRole::Vocabulary),
        ("foo", &[], DimRole::Unknown),
        ("sample.shape[0]", &[], DimRole::Batch),
        ("input_shape[0]", &[], DimRole::Batch),
        ("latents.size(0)", &[], DimRole::Batch),
        ("len(prompt)", &[], DimRole::Batch),
        ("x.size(-1)", &[], DimRole::Hidden),
        ("x.shape[1]", &[], DimRole::Unknown),
        ("slen", &[], DimRole::Sequence),
        ("klen", &[], DimRole::Sequence),
        ("num_hidden_layers", &[], DimRole::Count),
        ("num_experts", &[], DimRole::Count),
        ("num_images_per_prompt", &[], DimRole::Count),
        ("n_rep", &[], DimRole::Count),
        ("num_win", &[], DimRole::Count),
        ("top_k", &[], DimRole::Count),
        ("num_top_k", &[], DimRole::Count),
        ("hidden_dim", &[], DimRole::Hidden),
        ("d", &[], DimRole::Hidden),
    ];
    for (name, siblings, role) in cases {
        assert_eq!(role_of(name, siblings), *role, "{name}");
    }
}

#[test]
fn batch_like_sizes() {
    let var = |n: &str| SymExpr::Var(n.to_string());
    let opaque = |n: &str| SymExpr::Opaque(n.to_string());
    let mul = |a, b| SymExpr::Mul(Box::new(a), Box::new(b));
    let yes = [
        var("batch_size"),
        var("bsz"),
        opaque("latents.shape[0]"),
        opaque("len(prompt)"),
        var("num_images_per_prompt"),
        var("num_beams"),
        SymExpr::Num(2),
        SymExpr::Num(SMALL_FACTOR),
        mul(var("batch_size"), var("num_videos_per_prompt")),
        var("num_audios"),
        SymExpr::Add(Box::new(var("num_cfg")), Box::new(SymExpr::Num(1))),
        SymExpr::FloorDiv(Box::new(var("batch_size")), Box::new(var("n"))),
    ];
    let no = [
        var("seq_len"),
        var("num_heads"),
        var("hidden_size"),
        var("num_hidden_layers"),
        var("num_experts"),
        var("img_size"),
        opaque("hidden_states.shape[2]"),
        SymExpr::Num(SMALL_FACTOR + 1),
        mul(var("batch_size"), var("seq_len")),
        SymExpr::Add(Box::new(var("seq_len")), Box::new(SymExpr::Num(1))),
        SymExpr::Add(Box::new(var("batch_size")), Box::new(var("num_beams"))),
        SymExpr::Add(
            Box::new(var("batch_size")),
            Box::new(SymExpr::Num(SMALL_FACTOR + 1)),
        ),
    ];
    for e in &yes {
        assert!(batch_like(e, &[]), "{e}");
    }
    for e in &no {
        assert!(!batch_like(e, &[]), "{e}");
    }
}

#[test]
fn counts_read_off_a_leading_size() {
    let var = |n: &str| SymExpr::Var(n.to_string());
    let leading = |name: &str, size: &str| vec![(name.to_string(), size.to_string())];
    // A count that names no role, or counts items, read off a leading size: batch-like.
    let yes = [
        ("num_labels", "unique_labels.shape[0]"),
        ("num_columns", "candidates.shape[0]"),
        ("num_boxes", "boxes.shape[0]"),
    ];
    // A name that says what it is keeps its role; a later dim says nothing.
    let no = [
        ("S", "x.shape[0]"),
        ("seq_len", "x.shape[0]"),
        ("num_heads", "q.shape[0]"),
        ("num_labels", "logits.shape[2]"),
    ];
    for (name, size) in yes {
        assert!(batch_like(&var(name), &leading(name, size)), "{name}");
        assert!(!batch_like(&var(name), &[]), "{name} alone");
    }
    for (name, size) in no {
        assert!(!batch_like(&var(name), &leading(name, size)), "{name}");
    }
}

fn bindings<'a>(
    by_name: &'a HashMap<String, i64>,
    origins: &'a HashMap<String, BindOrigin>,
    model: &'a ModelDims,
    constants: &'a [NamedConstant],
) -> Bindings<'a> {
    Bindings {
        by_name,
        origins,
        model,
        constants,
        file: "src/pkg/attn.py",
        learned: Box::leak(Box::default()),
    }
}

#[test]
fn seed_case_at_the_defaults_and_bound() {
    let s = shape(&["batch_size", "num_attention_heads", "total_seq_len", "*"]);
    let none = HashMap::new();
    let no = HashMap::new();
    let model = ModelDims::default();
    let e = estimate(&s, 1, &bindings(&none, &no, &model, &[])).expect("estimate");
    assert_eq!(e.numel, 8 * 32 * 4096 * 512);
    assert!(e.assumes_anything());
    assert_eq!(e.basis(), SizeBasis::Unknown);
    let bound: HashMap<String, i64> = [
        ("batch_size".to_string(), 3),
        ("num_attention_heads".to_string(), 24),
        ("total_seq_len".to_string(), 9536),
        ("unknown".to_string(), 9536),
    ]
    .into_iter()
    .collect();
    let origins: HashMap<String, BindOrigin> = [
        (
            "batch_size".to_string(),
            BindOrigin::Config(Arc::from("pyproject.toml")),
        ),
        (
            "unknown".to_string(),
            BindOrigin::Config(Arc::from("pyproject.toml")),
        ),
    ]
    .into_iter()
    .collect();
    let e = estimate(&s, 1, &bindings(&bound, &origins, &model, &[])).expect("estimate");
    assert_eq!(e.bytes, 3 * 24 * 9536 * 9536);
    assert!(e.basis_is_stated());
    assert_eq!(e.basis(), SizeBasis::Stated);
    assert_eq!(
        provenance(&e),
        "batch_size=3 (config pyproject.toml), num_attention_heads=24 (--dim), total_seq_len=9536 (--dim), *=9536 (unknown from config pyproject.toml)"
    );
}

#[test]
fn role_overrides_and_grouping() {
    let s = shape(&["bsz", "num_heads", "q_len", "kv_len"]);
    let by_role: HashMap<String, i64> = [("batch".to_string(), 2)].into_iter().collect();
    let no = HashMap::new();
    let model = ModelDims::default();
    let e = estimate(&s, 4, &bindings(&by_role, &no, &model, &[])).expect("estimate");
    assert_eq!(e.bytes, 2 * 32 * 4096 * 4096 * 4);
    assert_eq!(e.basis(), SizeBasis::Guessed);
    assert_eq!(
        provenance(&e),
        "bsz=2 (batch from --dim), num_heads=32 (guessed heads), q_len=kv_len=4096 (guessed sequence)"
    );
}

#[test]
fn expressions_literals_and_failures() {
    let none = HashMap::new();
    let model = ModelDims::default();
    let no = HashMap::new();
    let b = bindings(&none, &no, &model, &[]);
    let s = Shape(vec![
        Dim::Size(SymExpr::Mul(
            Box::new(SymExpr::Var("bsz".into())),
            Box::new(SymExpr::Var("num_beams".into())),
        )),
        Dim::Size(SymExpr::Num(1)),
    ]);
    let e = estimate(&s, 8, &b).expect("estimate");
    assert_eq!(e.numel, 8 * 32);
    assert_eq!(e.dims[1].sources[0].2, ValueSource::Literal);
    let negative = shape(&["-3", "4"]);
    assert!(estimate(&negative, 1, &b).is_none());
}

#[test]
fn small_factors_stated_by_the_model_config() {
    let file: Arc<str> = Arc::from("configuration_x.py");
    let model = ModelDims {
        values: [
            ("tubelet_size".to_string(), (2, file.clone())),
            ("num_heads".to_string(), (8, file.clone())),
            ("cross_attn_k".to_string(), (2, file.clone())),
            ("num_frames".to_string(), (64, file.clone())),
        ]
        .into_iter()
        .collect(),
    };
    let var = |n: &str| SymExpr::Var(n.to_string());
    assert!(small_config_factor(&var("tubelet_size"), &model));
    assert!(small_config_factor(
        &var("self.config.tubelet_size"),
        &model
    ));
    // Heads and sequence-like names grow a model's work even when few; a large factor is large;
    // a name the configuration does not state says nothing.
    for name in ["num_heads", "cross_attn_k", "num_frames", "patch_size"] {
        assert!(!small_config_factor(&var(name), &model), "{name}");
    }
}

fn constant(name: &str, value: i64, written: &str, line: u32) -> NamedConstant {
    NamedConstant {
        name: name.to_string(),
        value,
        written: written.to_string(),
        line,
        kind: ConstantKind::Literal,
    }
}

#[test]
fn constants_state_their_dims() {
    let s = shape(&["8", "NUM_HEADS", "1024", "topk"]);
    let none = HashMap::new();
    let no = HashMap::new();
    let model = ModelDims::default();
    let constants = [
        constant("NUM_HEADS", 4, "NUM_HEADS = 4", 3),
        constant("topk", 16, "self.topk = 16", 12),
    ];
    let e = estimate(&s, 2, &bindings(&none, &no, &model, &constants)).expect("estimate");
    assert_eq!(e.bytes, 8 * 4 * 1024 * 16 * 2);
    assert_eq!(e.basis(), SizeBasis::Stated);
    assert_eq!(
        e.dims[1].sources[0].2,
        ValueSource::Constant {
            written: Arc::from("NUM_HEADS = 4"),
            file: Arc::from("attn.py"),
            line: 3,
            kind: ConstantKind::Literal,
        }
    );
    assert_eq!(
        provenance(&e),
        "NUM_HEADS=4 (constant NUM_HEADS = 4 at attn.py:3), topk=16 (constant self.topk = 16 at attn.py:12)"
    );
    // A name binding beats the constant; the constant beats a role binding.
    let by_name: HashMap<String, i64> = [("NUM_HEADS".to_string(), 8), ("heads".to_string(), 64)]
        .into_iter()
        .collect();
    let e = estimate(&s, 2, &bindings(&by_name, &no, &model, &constants)).expect("estimate");
    assert_eq!(e.dims[1].sources[0].1, 8);
    assert_eq!(e.dims[1].sources[0].2, ValueSource::Bound(BindOrigin::Flag));
    let by_role: HashMap<String, i64> = [("heads".to_string(), 64)].into_iter().collect();
    let e = estimate(&s, 2, &bindings(&by_role, &no, &model, &constants)).expect("estimate");
    assert_eq!(e.dims[1].sources[0].1, 4);
}

#[test]
fn a_name_key_beats_a_role_key() {
    let s = shape(&["batch_size", "seq_len"]);
    let dims: HashMap<String, i64> = [
        ("batch_size".to_string(), 2),
        ("batch".to_string(), 64),
        ("sequence".to_string(), 32768),
    ]
    .into_iter()
    .collect();
    let file = BindOrigin::Config(Arc::from("pyproject.toml"));
    let origins: HashMap<String, BindOrigin> = [
        ("batch_size".to_string(), BindOrigin::Flag),
        ("sequence".to_string(), file.clone()),
    ]
    .into_iter()
    .collect();
    let model = ModelDims::default();
    let e = estimate(&s, 1, &bindings(&dims, &origins, &model, &[])).expect("estimate");
    assert_eq!(e.bytes, 2 * 32768);
    assert_eq!(e.dims[0].sources[0].2, ValueSource::Bound(BindOrigin::Flag));
    assert_eq!(
        e.dims[1].sources[0].2,
        ValueSource::RoleBound(DimRole::Sequence, file)
    );
    assert!(e.basis_is_stated());
}

#[test]
fn every_source_says_whether_it_is_stated() {
    let file: Arc<str> = Arc::from("x.py");
    let stated = [
        ValueSource::Literal,
        ValueSource::Constant {
            written: file.clone(),
            file: file.clone(),
            line: 1,
            kind: ConstantKind::ParameterDefault,
        },
        ValueSource::Bound(BindOrigin::Flag),
        ValueSource::RoleBound(DimRole::Batch, BindOrigin::Config(file.clone())),
        ValueSource::Config(file),
    ];
    for s in &stated {
        assert!(s.is_stated(), "{s}");
    }
    for role in DimRole::ALL {
        assert!(!ValueSource::Assumed(role).is_stated());
    }
}

#[test]
fn a_guess_is_worded_as_one() {
    let none = HashMap::new();
    let no = HashMap::new();
    let model = ModelDims::default();
    let figure = |dims: &[&str], itemsize| {
        let e =
            estimate(&shape(dims), itemsize, &bindings(&none, &no, &model, &[])).expect("estimate");
        SizeFigure {
            estimate: e,
            dtype: None,
            itemsize,
            capacity: None,
            exceeds_capacity: None,
        }
    };
    // Named roles: a total, said to be a guess.
    let note = figure_note(
        &figure(&["batch_size", "seq_len"], 4),
        "4 B (assumed float32)",
    );
    assert_eq!(
        note,
        "size: [batch_size, seq_len] x 4 B (assumed float32) = a guess of 128.00 KiB at batch_size=8 (guessed batch), seq_len=4096 (guessed sequence)"
    );
    // A name that says nothing: no total ("128 TiB" for a few-MiB audio tensor was the bug).
    let note = figure_note(&figure(&["8", "C", "F_dim", "100"], 4), "4 B (float32)");
    assert_eq!(
        note,
        "size: [8, C, F_dim, 100] x 4 B (float32), no total: C, F_dim have no stated size (bind with --dim or [tool.oomlint.dims])"
    );
    assert!(!note.contains("TiB") && !note.contains("GiB"));
    // All literal: a fact.
    let note = figure_note(&figure(&["8", "1024"], 1), "1 B (bool)");
    assert_eq!(note, "size: [8, 1024] x 1 B (bool) = 8.00 KiB");
}

#[test]
fn learned_sizes_rank_below_the_users_and_name_their_source() {
    let s = shape(&["batch_size", "num_attention_heads", "total_seq_len"]);
    let mut learned = LearnedDims::default();
    let ev: std::sync::Arc<str> = "bs2.trace.json".into();
    let at: std::sync::Arc<str> = "tiny_model.py:35".into();
    learned.learn("batch_size", 2, &ev, &at);
    learned.learn("num_attention_heads", 24, &ev, &at);
    learned.learn("total_seq_len", 2048, &ev, &at);
    // A smaller value measured elsewhere is noted; the larger stays.
    let at1: std::sync::Arc<str> = "tiny_model.py:99".into();
    learned.learn("total_seq_len", 1024, &ev, &at1);
    assert_eq!(learned.dims["total_seq_len"].value, 2048);
    assert!(
        learned.dims["total_seq_len"]
            .conflict_note("total_seq_len")
            .is_some_and(|n| n.contains("1024 (bs2.trace.json, tiny_model.py:99)"))
    );
    let bound: HashMap<String, i64> = [("batch_size".to_string(), 3)].into_iter().collect();
    let e = estimate(
        &s,
        4,
        &Bindings {
            by_name: &bound,
            origins: &HashMap::new(),
            model: &ModelDims::default(),
            constants: &[],
            file: "src/pkg/attn.py",
            learned: &learned,
        },
    )
    .expect("estimate");
    assert_eq!(e.bytes, 3 * 24 * 2048 * 4);
    assert!(!e.assumes_anything());
    assert_eq!(
        provenance(&e),
        "batch_size=3 (--dim), num_attention_heads=24 (from bs2.trace.json, tiny_model.py:35), total_seq_len=2048 (from bs2.trace.json, tiny_model.py:35)"
    );
}
