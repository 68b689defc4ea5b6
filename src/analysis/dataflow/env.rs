//! The facts known of each name at one point of a walk, and their join where paths meet.

use std::rc::Rc;

use super::super::facts::Fact;

/// The facts known of each name at one point of a walk. Names and facts are shared (`Rc`):
/// a branch copies the environment for each path, and a join at its end meets mostly the
/// facts both paths kept untouched, which it then finds by pointer instead of by comparing
/// them field by field.
#[derive(Clone, Default)]
pub(in crate::analysis::dataflow) struct Env(rustc_hash::FxHashMap<Rc<str>, Rc<Fact>>);

impl PartialEq for Env {
    fn eq(&self, other: &Env) -> bool {
        self.0.len() == other.0.len()
            && self.0.iter().all(|(key, fact)| {
                other
                    .0
                    .get(key)
                    .is_some_and(|o| Rc::ptr_eq(fact, o) || fact == o)
            })
    }
}

impl Env {
    fn with_capacity(n: usize) -> Self {
        Env(rustc_hash::FxHashMap::with_capacity_and_hasher(
            n,
            Default::default(),
        ))
    }

    pub(in crate::analysis::dataflow) fn get(&self, key: &str) -> Option<&Fact> {
        self.0.get(key).map(|f| &**f)
    }

    pub(in crate::analysis::dataflow) fn contains_key(&self, key: &str) -> bool {
        self.0.contains_key(key)
    }

    /// The fact of `key`, for a change: copied first when another environment shares it.
    pub(in crate::analysis::dataflow) fn get_mut(&mut self, key: &str) -> Option<&mut Fact> {
        self.0.get_mut(key).map(Rc::make_mut)
    }

    /// The fact of `key` for a change, `new()` when there is none yet.
    pub(in crate::analysis::dataflow) fn entry_or(
        &mut self,
        key: String,
        new: impl FnOnce() -> Fact,
    ) -> &mut Fact {
        Rc::make_mut(self.0.entry(key.into()).or_insert_with(|| Rc::new(new())))
    }

    /// Binds `key` to `fact`; gives back what it was bound to.
    pub(in crate::analysis::dataflow) fn insert(
        &mut self,
        key: String,
        fact: Fact,
    ) -> Option<Rc<Fact>> {
        self.0.insert(key.into(), Rc::new(fact))
    }

    /// Binds `key` again to a fact taken out of an environment (see [`Env::insert`]).
    pub(in crate::analysis::dataflow) fn restore(&mut self, key: &str, fact: Rc<Fact>) {
        self.0.insert(key.into(), fact);
    }

    pub(in crate::analysis::dataflow) fn remove(&mut self, key: &str) -> Option<Rc<Fact>> {
        self.0.remove(key)
    }

    /// Keeps the names for which `keep` holds.
    pub(in crate::analysis::dataflow) fn retain(&mut self, mut keep: impl FnMut(&str) -> bool) {
        self.0.retain(|k, _| keep(k));
    }

    pub(in crate::analysis::dataflow) fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.keys().map(|k| &**k)
    }

    pub(in crate::analysis::dataflow) fn iter(&self) -> impl Iterator<Item = (&str, &Fact)> {
        self.0.iter().map(|(k, f)| (&**k, &**f))
    }

    /// Changes the facts for which `change` says it would: only those are copied out of
    /// what other environments share.
    pub(in crate::analysis::dataflow) fn update_where(
        &mut self,
        applies: impl Fn(&Fact) -> bool,
        mut change: impl FnMut(&mut Fact),
    ) {
        for fact in self.0.values_mut() {
            if applies(fact) {
                change(Rc::make_mut(fact));
            }
        }
    }
}

/// The facts of two paths where they meet: each name's facts joined (a name bound on one path
/// only is joined with an unknown value); names left unknown are dropped.
pub(super) fn join_env(a: &Env, b: &Env) -> Env {
    let mut out = Env::with_capacity(a.0.len().max(b.0.len()));
    let unknown = Fact::unknown();
    for (key, fa) in &a.0 {
        match b.0.get(key) {
            // Untouched on both paths: the same fact, shared.
            Some(fb) if Rc::ptr_eq(fa, fb) => {
                out.0.insert(key.clone(), fa.clone());
            }
            other => {
                let joined = fa.join(other.map_or(&unknown, |f| &**f));
                if joined != unknown {
                    out.0.insert(key.clone(), Rc::new(joined));
                }
            }
        }
    }
    for (key, fb) in &b.0 {
        if !a.0.contains_key(key) {
            let joined = fb.join(&unknown);
            if joined != unknown {
                out.0.insert(key.clone(), Rc::new(joined));
            }
        }
    }
    out
}
