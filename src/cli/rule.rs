//! `oomlint rule`: one rule's documentation, all of them, the list, or the README's table.

use std::io::Write;

use super::args::RuleArgs;
use super::output::{EXIT_CLEAN, fail};
use crate::rules::{RULES, rule_by_code};

pub(super) fn rule(args: RuleArgs) -> i32 {
    let mut out = std::io::stdout().lock();
    if args.markdown {
        let _ = write!(out, "{}", crate::rules::markdown_table());
        return EXIT_CLEAN;
    }
    if args.all {
        for (i, rule) in RULES.iter().enumerate() {
            if i > 0 {
                let _ = writeln!(out, "\n---\n");
            }
            let _ = write!(out, "{}", rule.doc);
        }
        return EXIT_CLEAN;
    }
    let Some(code) = args.code else {
        for rule in RULES {
            let _ = writeln!(out, "{}\t{}\t{}", rule.code, rule.name, rule.summary());
        }
        return EXIT_CLEAN;
    };
    match rule_by_code(&code) {
        Some(rule) => {
            let _ = write!(out, "{}", rule.doc);
            EXIT_CLEAN
        }
        None => fail(&format!("unknown rule `{code}`; `oomlint rule` lists them")),
    }
}
