//! The decoder on hand-made pickles: dict keys replaced, memo sharing, big ints, and the refusal of code, cycles and truncated input.

use super::*;

#[test]
fn later_keys_replace_earlier_ones_in_small_and_indexed_dicts() {
    // {0: 0, 1: 1, ..., 39: 39} then key 5 set again to 500 and key 30 to 3000, in a second
    // SETITEMS (past the 16 keys where the index takes over), and "k" twice as a string.
    let int = |n: i32| {
        let mut v = vec![b'J'];
        v.extend_from_slice(&n.to_le_bytes());
        v
    };
    let mut p = vec![0x80, 2, b'}', b'('];
    for k in 0..40 {
        p.extend(int(k));
        p.extend(int(k));
    }
    p.push(b'u');
    p.push(b'(');
    for (k, v) in [(5, 500), (30, 3000)] {
        p.extend(int(k));
        p.extend(int(v));
    }
    p.extend([b'X', 1, 0, 0, 0, b'k']);
    p.extend(int(1));
    p.extend([b'X', 1, 0, 0, 0, b'k']);
    p.extend(int(2));
    p.extend([b'u', b'.']);
    let v = decode(&p).expect("decodes");
    let Value::Dict(c) = &v else {
        panic!("not a dict: {v:?}")
    };
    let pairs = c.pairs();
    assert_eq!(pairs.len(), 41);
    let value_of = |key: &Value| {
        pairs
            .iter()
            .find(|(k, _)| key_eq(k, key))
            .and_then(|(_, v)| v.as_i64())
    };
    assert_eq!(value_of(&Value::Int(5)), Some(500));
    assert_eq!(value_of(&Value::Int(30)), Some(3000));
    assert_eq!(value_of(&Value::Int(31)), Some(31));
    assert_eq!(v.get("k").and_then(|x| x.as_i64()), Some(2));
}

#[test]
fn decodes_shared_memo_by_reference() {
    // pickle.dumps({'a': f, 'b': f}, protocol=2) with f = [{'line': 35}] (hand-assembled).
    let mut p = vec![
        0x80, 2, b'}', b'q', 0, b'(', b'X', 1, 0, 0, 0, b'a', b']', b'q', 1, b'}', b'q', 2,
    ];
    p.extend_from_slice(&[
        b'X', 4, 0, 0, 0, b'l', b'i', b'n', b'e', b'K', 35, b's', b'a',
    ]);
    p.extend_from_slice(&[b'X', 1, 0, 0, 0, b'b', b'h', 1, b'u', b'.']);
    let v = decode(&p).expect("decodes");
    let a = v.get("a").expect("a");
    let b = v.get("b").expect("b");
    assert!(a.ptr_eq(&b));
    let first = a.as_seq().expect("list")[0].clone();
    assert_eq!(first.get("line").and_then(|l| l.as_i64()), Some(35));
}

#[test]
fn long1_negative_and_big() {
    // LONG1 with 2 bytes 0xff 0xff = -1; LONG1 with 9 bytes = 2**64.
    let p = [0x80, 2, 0x8a, 2, 0xff, 0xff, b'.'];
    assert_eq!(decode(&p).expect("ok").as_i128(), Some(-1));
    let p = [0x80, 2, 0x8a, 9, 0, 0, 0, 0, 0, 0, 0, 0, 1, b'.'];
    assert_eq!(decode(&p).expect("ok").as_i128(), Some(1i128 << 64));
}

#[test]
fn refuses_code_and_cycles_and_truncation() {
    let p = b"\x80\x02cos\nsystem\nq\x00X\x04\x00\x00\x00trueq\x01\x85q\x02Rq\x03.";
    let e = decode(p).expect_err("refused");
    assert_eq!(e.offset, 2);
    assert!(
        e.message.contains("opcode GLOBAL os.system at byte 2"),
        "{}",
        e.message
    );
    // A list appended into itself.
    let p = [0x80, 2, b']', b'q', 0, b'h', 0, b'a', b'.'];
    assert!(
        decode(&p)
            .expect_err("cycle")
            .message
            .contains("inside itself")
    );
    // Truncated.
    let p = [0x80, 2, b'X', 9, 0, 0, 0, b'a'];
    assert!(
        decode(&p)
            .expect_err("truncated")
            .message
            .contains("truncated")
    );
    // Too deep.
    let mut p = vec![0x80, 2];
    p.extend(std::iter::repeat_n(b']', 300));
    p.extend(std::iter::repeat_n(b'a', 299));
    p.push(b'.');
    assert!(decode(&p).expect_err("deep").message.contains("deeper"));
}
