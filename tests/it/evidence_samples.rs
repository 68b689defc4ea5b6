//! Evidence readers against the samples in `testdata/samples/`, asserting the ground truth its
//! README lists.

use oomlint::evidence::report::{analyze, fit_peak, fit_sites, hot_allocations};
use oomlint::evidence::{DeviceKind, Evidence, EvidenceKind, LineKind, detect, load};
use std::path::PathBuf;

fn sample(rel: &str) -> PathBuf {
    crate::common::samples().join(rel)
}

fn must_load(rel: &str) -> Evidence {
    match load(&sample(rel)) {
        Ok(ev) => ev,
        Err(e) => panic!("{rel}: {e}"),
    }
}

const GIB: f64 = 1024.0 * 1024.0 * 1024.0;
const MIB: u64 = 1024 * 1024;

// ---------------------------------------------------------------- torch.profiler Chrome traces

#[test]
fn trace_bs2_top_allocation_is_the_expanded_mask_cast() {
    let ev = must_load("torch-cpu/expand_then_cast_bs2.trace.json");
    assert_eq!(ev.kind, EvidenceKind::ChromeTrace);
    assert_eq!(
        ev.allocations.len(),
        56,
        "112 [memory] events, 56 allocations"
    );
    let r = analyze(&ev, 5);
    let top = &r.hot[0];
    assert_eq!(top.bytes, 201_326_592);
    assert_eq!(top.count, 2);
    assert_eq!(top.op.as_deref(), Some("aten::to"));
    assert_eq!(
        top.op_chain,
        ["aten::to", "aten::_to_copy", "aten::empty_strided"]
    );
    assert_eq!(top.input_shapes[0], [2, 24, 2048, 2048]);
    assert_eq!(top.input_dtypes[0], "long int");
    assert_eq!(top.input_strides[0], [0, 0, 2048, 1]);
    assert_eq!(top.concrete_inputs[1], "11", "target ScalarType bool");
    let site = top.site.as_ref().expect("site");
    assert_eq!(
        (site.file.as_str(), site.line, site.function.as_str()),
        ("tiny_model.py", 35, "prepare_mask")
    );
    assert_eq!(site.line_kind, LineKind::Exact);
    assert!(top.materialized_broadcast);
    // Lives about 0.67-0.84 s (until the layer returns).
    let life = top.max_lifetime_ns.expect("freed");
    assert!((670_000_000..=850_000_000).contains(&life), "{life}");
    assert_eq!(r.materialized_broadcasts.len(), 1);

    // The first mask allocation: Total Allocated 214,695,936; stack walks up to forward:46.
    let mask = ev
        .allocations
        .iter()
        .find(|a| a.bytes == 201_326_592)
        .expect("mask");
    assert_eq!(mask.total_allocated_after, Some(214_695_936));
    assert_eq!(mask.device.kind, DeviceKind::Cpu);
    assert_eq!(mask.stack[1].file, "tiny_model.py");
    assert_eq!(
        (mask.stack[1].line, mask.stack[1].function.as_str()),
        (46, "forward")
    );
    assert_eq!(mask.stack[1].line_kind, LineKind::Exact);

    let peak = r.peak.expect("peak");
    assert_eq!(peak.allocated_bytes, 328_335_360);
    assert_eq!(
        peak.reserved_bytes, None,
        "CPU traces have no reserved memory"
    );
}

#[test]
fn trace_operator_without_python_call_gives_function_def_line() {
    // `/` creates no python_function event: only the user function is known (docs/formats.md).
    let ev = must_load("torch-cpu/expand_then_cast_bs2.trace.json");
    let div = ev
        .allocations
        .iter()
        .find(|a| a.op.as_deref() == Some("aten::div"))
        .expect("div");
    let f = &div.stack[0];
    assert_eq!(
        (f.file.as_str(), f.line, f.function.as_str()),
        ("tiny_model.py", 38, "forward")
    );
    assert_eq!(f.line_kind, LineKind::FunctionDef);
}

#[test]
fn trace_bs1_bs3_ground_truth_and_fit() {
    let cases = [
        (
            1.0,
            "torch-cpu/expand_then_cast_bs1.trace.json",
            100_663_296u64,
            vec![4_194_304i64, 0, 2048, 1],
            164_167_680u64,
        ),
        (
            2.0,
            "torch-cpu/expand_then_cast_bs2.trace.json",
            201_326_592,
            vec![0, 0, 2048, 1],
            328_335_360,
        ),
        (
            3.0,
            "torch-cpu/expand_then_cast_bs3.trace.json",
            301_989_888,
            vec![0, 0, 2048, 1],
            492_503_040,
        ),
    ];
    let mut reports = Vec::new();
    for (bs, path, bytes, strides, peak) in &cases {
        let r = analyze(&must_load(path), 8);
        let top = &r.hot[0];
        assert_eq!(top.bytes, *bytes, "{path}");
        assert_eq!(top.count, 2, "{path}");
        assert_eq!(top.input_shapes[0], [*bs as i64, 24, 2048, 2048], "{path}");
        assert_eq!(top.input_strides[0], *strides, "{path}");
        assert!(top.materialized_broadcast, "{path}");
        assert_eq!(top.site.as_ref().map(|s| s.line), Some(35), "{path}");
        assert_eq!(
            r.peak.as_ref().map(|p| p.allocated_bytes),
            Some(*peak),
            "{path}"
        );
        reports.push((*bs, r));
    }
    // Fit bs1 and bs2, predict bs3's peak (492,503,040 B) within 2%.
    let two: Vec<(f64, &_)> = reports[..2].iter().map(|(x, r)| (*x, r)).collect();
    let fit = fit_peak(&two).expect("fit");
    let predicted = fit.predict(3.0);
    assert!(
        (predicted - 492_503_040.0).abs() / 492_503_040.0 < 0.02,
        "{predicted}"
    );
    // Per site: the mask cast at :35 scales by 100,663,296 per batch element.
    let sites = fit_sites(&two);
    let mask = sites
        .iter()
        .find(|s| s.op.as_deref() == Some("aten::to"))
        .expect("mask site");
    assert_eq!(mask.site.as_ref().map(|s| s.line), Some(35));
    assert!((mask.fit.predict(3.0) - 301_989_888.0).abs() < 1.0);
}

#[test]
fn fixed_traces_cast_first() {
    let cases = [
        (
            "torch-cpu/fixed_bs1.trace.json",
            25_165_824u64,
            67_698_688u64,
        ),
        ("torch-cpu/fixed_bs2.trace.json", 50_331_648, 131_203_072),
        ("torch-cpu/fixed_bs3.trace.json", 75_497_472, 194_707_456),
    ];
    for (path, largest, peak) in cases {
        let ev = must_load(path);
        let r = analyze(&ev, 50);
        assert_eq!(
            r.peak.as_ref().map(|p| p.allocated_bytes),
            Some(peak),
            "{path}"
        );
        assert!(r.materialized_broadcasts.is_empty(), "{path}");
        let max_bytes = ev.allocations.iter().map(|a| a.bytes).max();
        assert_eq!(max_bytes, Some(largest), "{path}");
        // Ties (softmax has the same size) are fine: the matmul is among the largest.
        let max = ev
            .allocations
            .iter()
            .find(|a| a.bytes == largest && a.op_chain == ["aten::matmul", "aten::bmm"])
            .expect("matmul > bmm among the largest");
        let site = oomlint::evidence::report::user_frame(&max.stack).expect("site");
        assert_eq!(
            (site.file.as_str(), site.line),
            ("tiny_model.py", 48),
            "{path}"
        );
        // The cast at :58 allocates 4 MiB from a contiguous [1,1,2048,2048] input.
        let cast = ev
            .allocations
            .iter()
            .find(|a| a.op.as_deref() == Some("aten::to") && a.bytes == 4_194_304)
            .expect("cast");
        assert_eq!(cast.input_shapes[0], [1, 1, 2048, 2048]);
        assert_eq!(
            oomlint::evidence::report::user_frame(&cast.stack).map(|f| f.line),
            Some(58)
        );
        assert!(!oomlint::evidence::report::is_materialized_broadcast(cast));
    }
    // What the fix saves at bs2: mask - 4 MiB, exactly.
    let buggy = analyze(&must_load("torch-cpu/expand_then_cast_bs2.trace.json"), 1);
    let fixed = analyze(&must_load("torch-cpu/fixed_bs2.trace.json"), 1);
    let (b, f) = (
        buggy.peak.expect("p").allocated_bytes,
        fixed.peak.expect("p").allocated_bytes,
    );
    assert_eq!(b - f, 197_132_288);
}

#[test]
fn verbose_trace_same_numbers() {
    let ev = must_load("torch-cpu/expand_then_cast_bs2.verbose.trace.json");
    let r = analyze(&ev, 1);
    assert_eq!(
        r.peak.as_ref().map(|p| p.allocated_bytes),
        Some(328_335_360)
    );
    assert_eq!((r.hot[0].bytes, r.hot[0].count), (201_326_592, 2));
    assert_eq!(r.hot[0].site.as_ref().map(|s| s.line), Some(35));
}

#[test]
fn gzip_trace_reads_like_plain() {
    use std::io::Write;
    let data = std::fs::read(sample("torch-cpu/expand_then_cast_bs2.trace.json")).expect("read");
    let dir = tempfile::tempdir().expect("tmp");
    let gz = dir.path().join("t.pt.trace.json.gz");
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(&data).expect("gz");
    std::fs::write(&gz, enc.finish().expect("gz")).expect("write");
    assert_eq!(detect(&gz), Ok(EvidenceKind::ChromeTrace));
    let ev = load(&gz).expect("loads");
    let hot = hot_allocations(&ev.allocations);
    assert_eq!((hot[0].bytes, hot[0].count), (201_326_592, 2));
}

// ---------------------------------------------------------------- CUDA snapshots

#[test]
fn snapshot_bs2_mask_allocation_and_segments() {
    let ev = must_load("cuda-snapshot/constructed_cuda_snapshot_bs2.pickle");
    assert_eq!(ev.kind, EvidenceKind::CudaSnapshot);
    let max = ev
        .allocations
        .iter()
        .max_by_key(|a| a.bytes)
        .expect("allocs");
    assert_eq!(max.bytes, 4_364_894_208);
    assert_eq!(max.device.kind, DeviceKind::Cuda);
    assert_eq!(max.op.as_deref(), Some("at::native::_to_copy"));
    let f = &max.stack[0];
    assert_eq!(
        (f.file.as_str(), f.line, f.function.as_str()),
        ("/workspace/model/modeling_tiny.py", 35, "prepare_mask")
    );
    assert_eq!(f.line_kind, LineKind::Exact);
    assert_eq!(
        (max.stack[1].line, max.stack[1].function.as_str()),
        (46, "forward")
    );
    assert!(max.free_time_ns.is_some());
    let masks = ev
        .allocations
        .iter()
        .filter(|a| a.bytes == 4_364_894_208)
        .count();
    assert_eq!(masks, 2, "one per layer");

    // Reserved series: one 4,366,270,464 B segment_alloc (layer 1 reuses the cached segment).
    let s = &ev.series[0];
    let steps: Vec<i128> = s
        .points
        .windows(2)
        .filter_map(|w| Some(i128::from(w[1].reserved?) - i128::from(w[0].reserved?)))
        .collect();
    assert_eq!(steps.iter().filter(|&&d| d == 4_366_270_464).count(), 1);
    // Final state: 14 segments, reserved 24,226,299,904 B, allocated 19,327,352,832 B.
    let last = s.points.last().expect("point");
    assert_eq!(last.reserved, Some(24_226_299_904));
    assert_eq!(last.allocated, Some(19_327_352_832));
    let data =
        std::fs::read(sample("cuda-snapshot/constructed_cuda_snapshot_bs2.pickle")).expect("read");
    let root = oomlint::evidence::pickle::decode(&data).expect("decodes");
    let totals = oomlint::evidence::snapshot::segment_totals(&root);
    assert_eq!(
        (totals.segments, totals.reserved, totals.allocated),
        (14, 24_226_299_904, 19_327_352_832)
    );
    let traces = root.get("device_traces").expect("traces");
    let entries = traces.as_seq().expect("list")[0].clone();
    let entries = entries.as_seq().expect("list");
    assert_eq!(entries.len(), 65);
    // Memo sharing: the two mask allocs hold the *same* frames list object.
    let mask_frames: Vec<_> = entries
        .iter()
        .filter(|e| {
            e.get("action")
                .and_then(|a| a.as_str().map(str::to_string))
                .as_deref()
                == Some("alloc")
        })
        .filter(|e| e.get("size").and_then(|s| s.as_u64()) == Some(4_364_894_208))
        .filter_map(|e| e.get("frames"))
        .collect();
    assert_eq!(mask_frames.len(), 2);
    assert!(mask_frames[0].ptr_eq(&mask_frames[1]));
}

#[test]
fn snapshot_bs3_oom_entry() {
    let ev = must_load("cuda-snapshot/constructed_cuda_snapshot_bs3_oom.pickle");
    assert_eq!(ev.ooms.len(), 1);
    let o = &ev.ooms[0];
    assert_eq!(o.device_kind, DeviceKind::Cuda);
    assert_eq!(o.requested_bytes, Some(6_547_341_312));
    assert_eq!(o.free_bytes, Some(5_856_624_640));
    assert!(!o.sizes_approximate);
    let f = o.frame.as_ref().expect("frame");
    assert_eq!(
        (f.file.as_str(), f.line, f.function.as_str()),
        ("/workspace/model/modeling_tiny.py", 35, "prepare_mask")
    );
    let data = std::fs::read(sample(
        "cuda-snapshot/constructed_cuda_snapshot_bs3_oom.pickle",
    ))
    .expect("read");
    let root = oomlint::evidence::pickle::decode(&data).expect("decodes");
    assert_eq!(
        oomlint::evidence::snapshot::segment_totals(&root).segments,
        8
    );
}

// ---------------------------------------------------------------- Ascend

#[test]
fn ascend_folder_ground_truth() {
    for rel in [
        "ascend/constructed_bs2_ascend_pt",
        "ascend/constructed_bs2_ascend_pt/ASCEND_PROFILER_OUTPUT",
    ] {
        let ev = must_load(rel);
        assert_eq!(ev.kind, EvidenceKind::AscendFolder);
        assert_eq!(ev.allocations.len(), 8);
        let r = analyze(&ev, 8);
        // aten::_to_copy 34,100,736.0 KB (the int64 materialisation), 2 rows, joined to aten::to.
        let top = &r.hot[0];
        assert_eq!(top.bytes, 34_100_736 * 1024);
        assert_eq!(top.bytes, 34_919_153_664);
        assert_eq!(top.count, 2);
        assert_eq!(top.op.as_deref(), Some("aten::to"));
        assert_eq!(top.op_chain, ["aten::to", "aten::_to_copy"]);
        assert_eq!(top.input_shapes[0], [2, 24, 9536, 9536]);
        assert_eq!(top.input_dtypes[0], "long int");
        let site = top.site.as_ref().expect("site");
        assert_eq!(
            (site.file.as_str(), site.line, site.function.as_str()),
            ("/workspace/model/modeling_tiny.py", 35, "prepare_mask")
        );
        assert_eq!(top.max_lifetime_ns, Some(48_212_000), "alive about 48 ms");
        let bool_rows = ev
            .allocations
            .iter()
            .filter(|a| a.bytes == 4_262_592 * 1024)
            .count();
        assert_eq!(bool_rows, 2);
        for name in ["aten::matmul", "aten::softmax"] {
            let n = ev
                .allocations
                .iter()
                .filter(|a| a.op.as_deref() == Some(name) && a.bytes == 8_525_184 * 1024)
                .count();
            assert_eq!(n, 2, "{name}");
        }

        // Static 11,474 MB (11.2 GiB); PTA peak 48,938.1875 MB (47.79 GiB).
        let st = r.static_memory.as_ref().expect("static");
        assert_eq!(st.static_bytes, 11_474 * MIB);
        assert!((st.static_bytes as f64 / GIB - 11.2).abs() < 0.05);
        let peak = r.peak.as_ref().expect("peak");
        assert_eq!(peak.component, "PTA");
        assert_eq!(peak.allocated_bytes, 51_315_408_896, "48,938.1875 MB");
        assert!((peak.allocated_bytes as f64 / GIB - 47.79).abs() < 0.005);
        // APP = PTA reserved + 3,480 MB.
        let gap = r.gap.as_ref().expect("gap");
        assert_eq!(gap.app_minus_pta_bytes, Some(3_480 * MIB));
        // GE constant at 300 MB.
        let ge = ev.series_of("GE").expect("GE");
        assert!(ge.points.iter().all(|p| p.allocated == Some(300 * MIB)));
        for c in ["APP", "PTA", "PTA+GE"] {
            assert!(ev.series_of(c).is_some(), "{c}");
        }
        // CANN module memory: 8 components, 3,347 MB.
        assert_eq!(ev.component_memory.len(), 8);
        assert_eq!(r.component_memory_bytes, Some(3_347 * MIB));
        // kernel_details: BroadcastTo then Cast (INT64 -> BOOL).
        assert_eq!(ev.kernels.len(), 4);
        assert_eq!(ev.kernels[0].name, "BroadcastTo");
        assert_eq!(ev.kernels[0].output_shapes, [[2, 24, 9536, 9536]]);
        assert_eq!(ev.kernels[1].name, "Cast");
        assert_eq!(
            (
                ev.kernels[1].input_dtypes.as_slice(),
                ev.kernels[1].output_dtypes.as_slice()
            ),
            (&["INT64".to_string()][..], &["BOOL".to_string()][..])
        );
    }
}

// ---------------------------------------------------------------- OOM logs

#[test]
fn cpu_oom_log() {
    let ev = must_load("torch-cpu/oom_cpu.log");
    assert_eq!(ev.kind, EvidenceKind::OomLog);
    let o = &ev.ooms[0];
    assert_eq!(o.device_kind, DeviceKind::Cpu);
    assert_eq!(o.allocator.as_deref(), Some("DefaultCPUAllocator"));
    assert_eq!(o.requested_bytes, Some(6_547_341_312));
    assert!(!o.sizes_approximate);
    let f = o.frame.as_ref().expect("frame");
    assert_eq!(
        (f.file.as_str(), f.line, f.function.as_str()),
        ("/home/user/tinymodel/tiny_model.py", 35, "prepare_mask")
    );
    assert_eq!(
        o.source_line.as_deref(),
        Some("attn_mask = attn_mask.bool()")
    );
}

fn near(v: Option<u64>, gib: f64) -> bool {
    v.is_some_and(|b| (b as f64 / GIB - gib).abs() < 0.006)
}

#[test]
fn cuda_oom_log() {
    let ev = must_load("cuda-snapshot/constructed_oom_cuda_bs3.log");
    let o = &ev.ooms[0];
    assert_eq!(
        (o.device_kind.clone(), o.device_index),
        (DeviceKind::Cuda, Some(0))
    );
    assert!(o.sizes_approximate);
    assert!(near(o.requested_bytes, 6.10));
    let req = o.requested_bytes.expect("requested") as f64;
    assert!((req - 6_547_341_312.0).abs() / 6_547_341_312.0 < 0.001);
    assert!(near(o.capacity_bytes, 23.65));
    assert!(near(o.free_bytes, 5.45));
    assert!(near(o.process_in_use_bytes, 18.20));
    assert_eq!(o.allocated_bytes, Some(18 * 1024 * MIB));
    assert_eq!(
        o.reserved_bytes,
        Some(18 * 1024 * MIB),
        "0 bytes reserved but unallocated"
    );
    let f = o.frame.as_ref().expect("frame");
    assert_eq!(
        (f.file.as_str(), f.line),
        ("/workspace/model/modeling_tiny.py", 35)
    );
    assert_eq!(
        o.source_line.as_deref(),
        Some("attn_mask = attn_mask.bool()")
    );
}

#[test]
fn npu_oom_log() {
    let ev = must_load("ascend/constructed_oom_npu_bs3.log");
    let o = &ev.ooms[0];
    assert_eq!(
        (o.device_kind.clone(), o.device_index),
        (DeviceKind::Npu, Some(0))
    );
    assert!(near(o.requested_bytes, 48.78));
    // 48.78 GiB = 3*24*9536^2*8 B.
    let req = o.requested_bytes.expect("requested") as f64;
    assert!((req - 52_378_730_496.0).abs() / 52_378_730_496.0 < 0.001);
    assert!(near(o.capacity_bytes, 60.97));
    assert!(near(o.allocated_bytes, 11.21));
    assert!(near(o.free_bytes, 46.02));
    assert!(near(o.reserved_bytes, 11.50));
    let f = o.frame.as_ref().expect("frame");
    assert_eq!(
        (f.file.as_str(), f.line, f.function.as_str()),
        ("/workspace/model/modeling_tiny.py", 35, "prepare_mask")
    );
    assert_eq!(
        o.source_line.as_deref(),
        Some("attn_mask = attn_mask.bool()")
    );
}
