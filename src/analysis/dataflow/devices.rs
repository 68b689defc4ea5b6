//! Devices named by expressions. A value moved with `.to(self.device)` or made with
//! `device=device` lives on the device that expression names; it keeps that through indexing,
//! `repeat`, the ops of its methods, a list that gathers only such values and the `torch.cat`
//! of that list, and through an attribute read of an object moved with `.to(device)` (a batch
//! of tensors moves them all). A later move to the same expression returns the tensor itself.
//! What the expression names is not known (it may be the CPU): the abstract [`Placement`]
//! stays as it was, only the sameness is a fact.

use std::rc::Rc;

use crate::source::TextRange;
use crate::source::ast::Expr;

use crate::analysis::facts::{DType, DeviceSym, Fact, Placement, ValueKind};
use crate::analysis::{AlreadyOn, SinkKind};

use super::stmt::{Walker, dotted_key};

/// The device expression a device argument names: a placed value's, read through `.device`
/// (`x.device`), or the dotted name as written (`self.device`, `device`). None for literals and
/// calls.
pub(super) fn named_device(arg: &Expr, fact: &Fact) -> Option<Rc<str>> {
    if let Some(sym) = &fact.device_sym {
        return Some(sym.device.clone());
    }
    if fact.kind == ValueKind::Tensor {
        return None;
    }
    dotted_key(arg).map(Rc::from)
}

/// `x.device`, `device`, `self.device`, `target_device`: a device, not a dtype.
pub(super) fn names_device(expr: &Expr) -> bool {
    let name = match expr {
        Expr::Name(n) => n.id.as_str(),
        Expr::Attribute(a) => a.attr.id.as_str(),
        _ => return false,
    };
    name.ends_with("device")
}

/// Whether a stored key rebinds the name a device expression reads (`device`, or `x` of
/// `x.device`).
fn reads_key(device: &str, key: &str) -> bool {
    device
        .strip_prefix(key)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['.', '[']))
}

impl Walker<'_, '_> {
    /// `fact`, placed on the device `device` names by the move or factory at `at`.
    pub(super) fn placed_on(&mut self, mut fact: Fact, device: Option<Rc<str>>, at: u32) -> Fact {
        fact.device_sym = device.map(|device| Rc::new(DeviceSym { device, at }));
        self.placed_on_names |= fact.device_sym.is_some();
        fact
    }

    /// `key` is bound anew: a device expression that reads it may now name another device.
    pub(super) fn forget_device_name(&mut self, key: &str) {
        if !self.placed_on_names {
            return;
        }
        self.env.update_where(
            |fact| {
                fact.device_sym
                    .as_ref()
                    .is_some_and(|sym| reads_key(&sym.device, key))
            },
            |fact| fact.device_sym = None,
        );
    }

    /// A move to `target` (`target_device`: the device expression it names, if any): a sink
    /// that says whether the value is known to live elsewhere, or known to be there already.
    /// The result lives at the target (or where it was, when the target is not known).
    pub(super) fn device_move(
        &mut self,
        recv: &Fact,
        target: Placement,
        target_device: Option<Rc<str>>,
        (range, code): (TextRange, TextRange),
        result_dtype: Option<DType>,
    ) -> Fact {
        let already_on = match (&recv.device_sym, &target_device) {
            (Some(sym), Some(device)) if sym.device == *device => Some(sym.clone()),
            _ => None,
        };
        let crosses = already_on.is_none() && recv.placement.move_crosses(target);
        let noop = already_on.is_some() || recv.placement.move_is_noop(target);
        let mut result = self.sink(recv, SinkKind::DeviceMove, range, code, result_dtype);
        if let Some(&id) = result.sink_results.first()
            && let Some(site) = self.fs.sites.get_mut(id as usize)
        {
            site.moves_across_devices = crosses;
            site.move_is_noop = noop && result_dtype == recv.dtype;
            site.already_on = already_on
                .filter(|_| site.move_is_noop)
                .map(|sym| AlreadyOn {
                    device: sym.device.to_string(),
                    line: line_of(self.fs.text, sym.at),
                });
        }
        // A move that may do nothing returns the tensor itself: the value may still be the
        // enlarged one (surely, when the facts say it is already there in that dtype). A dtype
        // known to change makes a new tensor either way.
        let casts = result_dtype.is_some() && recv.dtype.is_some() && result_dtype != recv.dtype;
        if !crosses
            && !casts
            && let Some(enlarged) = &recv.enlarged
        {
            result.enlarged = Some(self.kept_through_move(enlarged, noop, range, code));
        }
        // Likewise a full-size copy: a move that may do nothing may hand back that copy itself
        // (`self.window.to(x.device)` read as a convolution's weight).
        if !crosses && !casts && recv.enlarged.is_none() && result.sink_results.is_empty() {
            result.sink_results = recv.sink_results.clone();
        }
        let placement = match target {
            Placement::Unknown if recv.placement == Placement::Host => Placement::Device,
            Placement::Unknown => recv.placement,
            known => known,
        };
        let result = result.placed(placement);
        self.placed_on(result, target_device, range.start().to_u32())
    }

    /// An attribute read of an object moved with `.to(device)` (`batch.attention_mask`): where
    /// the object was moved. None when the object was not moved to a named device.
    pub(super) fn attribute_of_placed(&self, value: &Fact) -> Option<Fact> {
        value.device_sym.as_ref()?;
        Some(Fact::unknown().placed_like(value))
    }
}

/// The 1-based line of an offset.
fn line_of(text: &str, at: u32) -> u32 {
    let end = (at as usize).min(text.len());
    text.as_bytes()[..end]
        .iter()
        .filter(|b| **b == b'\n')
        .count() as u32
        + 1
}

#[cfg(test)]
mod tests {
    use super::{line_of, reads_key};

    #[test]
    fn a_binding_forgets_the_device_expressions_that_read_it() {
        assert!(reads_key("device", "device"));
        assert!(reads_key("x.device", "x"));
        assert!(reads_key("self.device", "self.device"));
        assert!(!reads_key("devices", "device"));
        assert!(!reads_key("self.device", "self.dev"));
        assert!(!reads_key("device", "x"));
    }

    #[test]
    fn lines_are_one_based() {
        assert_eq!(line_of("a\nb\nc", 0), 1);
        assert_eq!(line_of("a\nb\nc", 2), 2);
        assert_eq!(line_of("a\nb\nc", 99), 3);
    }
}
