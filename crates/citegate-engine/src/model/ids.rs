//! Typed identities of what a doc holds (ruff's `ruff_index`): a citation, a claim and an answer
//! are each named by their index in the doc's [`super::Extracted`] vectors, as a type of its own,
//! so a claim's index is never taken for a citation's. [`IndexVec`] is a `Vec` indexed by its ID.

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut, Index, IndexMut};

/// An index type: a `u32` newtype made from and turned back into a `usize`.
pub trait Idx: Copy + Eq + Ord + std::fmt::Debug {
    fn new(index: usize) -> Self;
    fn index(self) -> usize;
}

macro_rules! newtype_index {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
        pub struct $name(u32);

        impl Idx for $name {
            fn new(index: usize) -> Self {
                // Docs hold at most MAX_CITATIONS_PER_DOC citations: far below u32::MAX.
                Self(u32::try_from(index).expect("index fits in u32"))
            }
            fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl $name {
            /// The ID of the `index`th item.
            pub fn new(index: usize) -> Self {
                <Self as Idx>::new(index)
            }
            /// Its position in the doc's vector.
            pub fn index(self) -> usize {
                <Self as Idx>::index(self)
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                self.0.fmt(f)
            }
        }
    };
}

newtype_index!(
    /// A doc of a run: its index in [`super::Report::docs`] (and in the audit's list of docs
    /// before the report is made). A doc list indexes by it: `docs[f.doc]`.
    DocId
);
newtype_index!(
    /// A citation of a doc: its index in [`super::Extracted::citations`].
    CiteId
);
newtype_index!(
    /// A claim of a doc (a sentence, a list item, a JSON claim or an answer's summary): its index
    /// in [`super::Extracted::claims`].
    ClaimId
);
newtype_index!(
    /// A JSON answer of a doc: its index in [`super::Extracted::answers`].
    AnswerId
);

/// A `Vec` whose items are named by `I`: `v[id]`, `v.push_id(x) -> I`, `v.enumerated()`. It
/// dereferences to the `Vec` for everything else (length, iteration, retain).
#[derive(Clone, PartialEq, Eq)]
pub struct IndexVec<I, T> {
    raw: Vec<T>,
    _id: PhantomData<fn(&I)>,
}

impl<I: Idx, T> IndexVec<I, T> {
    /// An empty list.
    pub fn new() -> Self {
        Self::from(Vec::new())
    }

    /// Append `item` and return its ID.
    pub(crate) fn push_id(&mut self, item: T) -> I {
        self.raw.push(item);
        I::new(self.raw.len() - 1)
    }

    /// The item named `id`, if there is one.
    pub fn get_id(&self, id: I) -> Option<&T> {
        self.raw.get(id.index())
    }

    /// Every item with its ID.
    pub fn enumerated(&self) -> impl DoubleEndedIterator<Item = (I, &T)> + ExactSizeIterator {
        self.raw.iter().enumerate().map(|(i, t)| (I::new(i), t))
    }

    /// The ID the next pushed item gets.
    pub fn next_id(&self) -> I {
        I::new(self.raw.len())
    }
}

impl<I: Idx, T> Default for IndexVec<I, T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<I, T> From<Vec<T>> for IndexVec<I, T> {
    fn from(raw: Vec<T>) -> Self {
        Self {
            raw,
            _id: PhantomData,
        }
    }
}

impl<I, T> FromIterator<T> for IndexVec<I, T> {
    fn from_iter<It: IntoIterator<Item = T>>(iter: It) -> Self {
        Self::from(iter.into_iter().collect::<Vec<T>>())
    }
}

impl<I, T: std::fmt::Debug> std::fmt::Debug for IndexVec<I, T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.raw.fmt(f)
    }
}

impl<I, T> Deref for IndexVec<I, T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.raw
    }
}

impl<I, T> DerefMut for IndexVec<I, T> {
    fn deref_mut(&mut self) -> &mut Vec<T> {
        &mut self.raw
    }
}

impl<I: Idx, T> Index<I> for IndexVec<I, T> {
    type Output = T;
    fn index(&self, id: I) -> &T {
        &self.raw[id.index()]
    }
}

impl<I: Idx, T> IndexMut<I> for IndexVec<I, T> {
    fn index_mut(&mut self, id: I) -> &mut T {
        &mut self.raw[id.index()]
    }
}

impl<'a, I, T> IntoIterator for &'a IndexVec<I, T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter()
    }
}

impl<'a, I, T> IntoIterator for &'a mut IndexVec<I, T> {
    type Item = &'a mut T;
    type IntoIter = std::slice::IterMut<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.raw.iter_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn items_are_named_by_their_own_id() {
        let mut v: IndexVec<CiteId, &str> = IndexVec::new();
        assert_eq!(v.next_id(), CiteId::new(0));
        let a = v.push_id("a");
        let b = v.push_id("b");
        assert_eq!((v[a], v[b]), ("a", "b"));
        assert_eq!(b.index(), 1);
        assert_eq!(v.get_id(CiteId::new(2)), None);
        let ids: Vec<CiteId> = v.enumerated().map(|(i, _)| i).collect();
        assert_eq!(ids, [a, b]);
        assert_eq!(b.to_string(), "1");
    }
}
