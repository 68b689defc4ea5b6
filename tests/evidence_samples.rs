//! Evidence readers against the shared samples (FORMATS.md section 5 ground truth).

use oomlint::evidence::report::{analyze, fit_peak, fit_sites};
use oomlint::evidence::{DeviceKind, EvidenceKind, LineKind, load};
use std::path::{Path, PathBuf};

fn sample(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared/samples")
        .join(rel)
}

#[test]
fn explore() {
    for p in [
        "torch-cpu/expand_then_cast_bs2.trace.json",
        "cuda-snapshot/constructed_cuda_snapshot_bs2.pickle",
        "cuda-snapshot/constructed_cuda_snapshot_bs3_oom.pickle",
        "ascend/constructed_bs2_ascend_pt",
        "torch-cpu/oom_cpu.log",
        "ascend/constructed_oom_npu_bs3.log",
        "cuda-snapshot/constructed_oom_cuda_bs3.log",
    ] {
        let ev = load(&sample(p)).unwrap();
        let r = analyze(&ev, 3);
        println!("==== {p}\n{}", serde_json::to_string_pretty(&r).unwrap());
    }
    let _ = (
        fit_peak,
        fit_sites,
        DeviceKind::Cpu,
        EvidenceKind::OomLog,
        LineKind::Exact,
    );
}
