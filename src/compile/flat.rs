//! Lists a compiled set reads in place: numbers and texts kept as the bytes
//! of the artifact's record, read where they lie instead of decoded into
//! vectors on every event.
//!
//! The prefilter of the pack's Bash bucket holds about 230 program names,
//! 150 subcommands and a thousand path and text literals, with the rules that
//! want each. Decoded by postcard into `Vec`s and `String`s (a varint and a
//! push per number, an allocation and a UTF-8 check per text), that record
//! cost ~0.4M instructions on every Bash event, of which the event looks at
//! a handful of entries (a binary search for the program, a scan of the
//! literals). Held flat, decoding a list is taking a slice of the record.
//!
//! Why hand-laid and not a zero-copy crate (rkyv): the records are
//! authenticated before they are decoded (a MAC under the user's key, or the
//! public hash of the embedded pack, see [`super::artifact`]), so what is
//! left to validate is that the bytes fit the layout; the lists are two
//! shapes (fixed-width little-endian words, and texts one after the other),
//! and the rest of the record (field paths, path selectors) must stay the
//! model's own types, which evaluation takes by reference. rkyv would need
//! archived twins of those types and a second set of accessors for a gain
//! that is all in the lists.
//!
//! Layout (postcard): a [`Words`] list is one byte string (its length, then
//! the words, little-endian); a [`Texts`] list is one string (the texts one
//! after the other) and a [`Words`] list of where each ends. A byte string
//! whose length is not a multiple of the word's does not decode; every other
//! read is bounds-checked and yields `None` (or ends the iteration), never a
//! panic.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserialize, Deserializer, Error, Visitor};
use serde::{Serialize, Serializer};

/// A value of fixed width, stored little-endian.
pub trait Word: Copy + 'static {
    /// Its width in bytes.
    const SIZE: usize;
    /// Read from exactly `SIZE` bytes.
    fn read(bytes: &[u8]) -> Self;
    /// Append its bytes.
    fn write(self, out: &mut Vec<u8>);
}

fn u32_at(bytes: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    b.copy_from_slice(&bytes[at..at + 4]);
    u32::from_le_bytes(b)
}

impl Word for u32 {
    const SIZE: usize = 4;
    fn read(bytes: &[u8]) -> Self {
        u32_at(bytes, 0)
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.to_le_bytes());
    }
}

impl Word for (u32, u32) {
    const SIZE: usize = 8;
    fn read(bytes: &[u8]) -> Self {
        (u32_at(bytes, 0), u32_at(bytes, 4))
    }
    fn write(self, out: &mut Vec<u8>) {
        self.0.write(out);
        self.1.write(out);
    }
}

impl Word for (u64, u32) {
    const SIZE: usize = 12;
    fn read(bytes: &[u8]) -> Self {
        let mut b = [0u8; 8];
        b.copy_from_slice(&bytes[..8]);
        (u64::from_le_bytes(b), u32_at(bytes, 8))
    }
    fn write(self, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.0.to_le_bytes());
        self.1.write(out);
    }
}

/// A list of words, held as their bytes (borrowed from a record, or owned
/// when built in this process).
pub struct Words<'a, T> {
    bytes: Cow<'a, [u8]>,
    word: PhantomData<T>,
}

/// A run of words borrowed from a [`Words`] list.
#[derive(Clone, Copy)]
pub struct Run<'b, T> {
    bytes: &'b [u8],
    word: PhantomData<T>,
}

impl<'b, T: Word> Run<'b, T> {
    /// The words, in order.
    pub fn iter(self) -> impl Iterator<Item = T> + 'b {
        self.bytes.chunks_exact(T::SIZE).map(T::read)
    }

    /// How many.
    pub fn len(self) -> usize {
        self.bytes.len() / T::SIZE
    }

    /// None at all?
    pub fn is_empty(self) -> bool {
        self.bytes.len() < T::SIZE
    }

    /// The `i`th word.
    pub fn get(self, i: usize) -> Option<T> {
        let at = i.checked_mul(T::SIZE)?;
        self.bytes.get(at..at.checked_add(T::SIZE)?).map(T::read)
    }

    /// Is `w` one of these words, which are sorted? (A binary search.)
    pub fn contains(self, w: T) -> bool
    where
        T: Ord,
    {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.get(mid).map(|m| m.cmp(&w)) {
                Some(std::cmp::Ordering::Less) => lo = mid + 1,
                Some(std::cmp::Ordering::Greater) => hi = mid,
                Some(std::cmp::Ordering::Equal) => return true,
                None => return false,
            }
        }
        false
    }

    /// Words `lo..hi`.
    fn slice(self, lo: usize, hi: usize) -> Option<Run<'b, T>> {
        let bytes = self
            .bytes
            .get(lo.checked_mul(T::SIZE)?..hi.checked_mul(T::SIZE)?)?;
        Some(Run {
            bytes,
            word: PhantomData,
        })
    }
}

impl<T: Word> Words<'_, T> {
    /// The same list, owning its bytes.
    pub fn into_owned(self) -> Words<'static, T> {
        Words {
            bytes: Cow::Owned(self.bytes.into_owned()),
            word: PhantomData,
        }
    }

    /// All of it, as a run.
    pub fn run(&self) -> Run<'_, T> {
        Run {
            bytes: &self.bytes,
            word: PhantomData,
        }
    }

    /// The words, in order.
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        self.run().iter()
    }

    /// None at all?
    pub fn is_empty(&self) -> bool {
        self.run().is_empty()
    }
}

impl<T: Word> FromIterator<T> for Words<'static, T> {
    fn from_iter<I: IntoIterator<Item = T>>(words: I) -> Self {
        let mut bytes = vec![];
        for w in words {
            w.write(&mut bytes);
        }
        Words {
            bytes: Cow::Owned(bytes),
            word: PhantomData,
        }
    }
}

impl<T> Default for Words<'_, T> {
    fn default() -> Self {
        Words {
            bytes: Cow::Borrowed(&[]),
            word: PhantomData,
        }
    }
}

impl<T: Word + fmt::Debug> fmt::Debug for Words<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T> Serialize for Words<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.bytes)
    }
}

impl<'de: 'a, 'a, T: Word> Deserialize<'de> for Words<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Bytes<'a>(PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for Bytes<'a> {
            type Value = Cow<'a, [u8]>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a byte string")
            }
            fn visit_borrowed_bytes<E: Error>(self, v: &'de [u8]) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(v))
            }
            fn visit_bytes<E: Error>(self, v: &[u8]) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v.to_vec()))
            }
            fn visit_byte_buf<E: Error>(self, v: Vec<u8>) -> Result<Self::Value, E> {
                Ok(Cow::Owned(v))
            }
        }
        let bytes = d.deserialize_bytes(Bytes(PhantomData))?;
        if bytes.len() % T::SIZE != 0 {
            return Err(D::Error::invalid_length(bytes.len(), &"whole words"));
        }
        Ok(Words {
            bytes,
            word: PhantomData,
        })
    }
}

/// Texts one after the other, each found by where it ends.
#[derive(Default, Serialize, serde::Deserialize)]
pub struct Texts<'a> {
    #[serde(borrow)]
    all: Cow<'a, str>,
    #[serde(borrow)]
    ends: Words<'a, u32>,
}

impl Texts<'_> {
    /// The same list, owning its bytes.
    pub fn into_owned(self) -> Texts<'static> {
        Texts {
            all: Cow::Owned(self.all.into_owned()),
            ends: self.ends.into_owned(),
        }
    }

    /// How many.
    fn len(&self) -> usize {
        self.ends.run().len()
    }

    /// The `i`th text (`None` past the end or in a damaged list).
    pub fn get(&self, i: usize) -> Option<&str> {
        let ends = self.ends.run();
        let start = match i {
            0 => 0,
            _ => ends.get(i - 1)? as usize,
        };
        self.all.get(start..ends.get(i)? as usize)
    }

    /// Every text, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map_while(|i| self.get(i))
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts<'static> {
    fn from_iter<I: IntoIterator<Item = S>>(texts: I) -> Self {
        let mut all = String::new();
        let mut ends = vec![];
        for t in texts {
            all.push_str(t.as_ref());
            ends.push(all.len() as u32);
        }
        Texts {
            all: Cow::Owned(all),
            ends: ends.into_iter().collect(),
        }
    }
}

impl fmt::Debug for Texts<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// Texts, each with a run of words (the rules that want it), sorted by text
/// when built from a map, so [`Keyed::get`] finds one by binary search.
#[derive(Serialize, serde::Deserialize)]
#[serde(bound(serialize = "", deserialize = "T: Word"))]
pub struct Keyed<'a, T> {
    #[serde(borrow)]
    texts: Texts<'a>,
    /// Where each text's words end in `words`.
    #[serde(borrow)]
    ends: Words<'a, u32>,
    #[serde(borrow)]
    words: Words<'a, T>,
}

impl<T> Default for Keyed<'_, T> {
    fn default() -> Self {
        Keyed {
            texts: Texts::default(),
            ends: Words::default(),
            words: Words::default(),
        }
    }
}

impl<T: Word + Ord> Keyed<'static, T> {
    /// From texts and their words, in the order given (each text's words
    /// sorted and deduplicated).
    pub fn new(entries: impl IntoIterator<Item = (String, Vec<T>)>) -> Self {
        let (mut texts, mut ends, mut words) = (vec![], vec![], vec![]);
        for (text, mut wanted) in entries {
            wanted.sort_unstable();
            wanted.dedup();
            texts.push(text);
            words.extend(wanted);
            ends.push(words.len() as u32);
        }
        Keyed {
            texts: texts.into_iter().collect(),
            ends: ends.into_iter().collect(),
            words: words.into_iter().collect(),
        }
    }
}

impl<T: Word> Keyed<'_, T> {
    /// The same list, owning its bytes.
    pub fn into_owned(self) -> Keyed<'static, T> {
        Keyed {
            texts: self.texts.into_owned(),
            ends: self.ends.into_owned(),
            words: self.words.into_owned(),
        }
    }

    fn len(&self) -> usize {
        self.texts.len().min(self.ends.run().len())
    }

    /// The `i`th text and its words (`None` past the end or in a damaged list).
    fn at(&self, i: usize) -> Option<(&str, Run<'_, T>)> {
        let ends = self.ends.run();
        let start = match i {
            0 => 0,
            _ => ends.get(i - 1)? as usize,
        };
        let words = self.words.run().slice(start, ends.get(i)? as usize)?;
        Some((self.texts.get(i)?, words))
    }

    /// Every text with its words.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Run<'_, T>)> {
        (0..self.len()).map_while(|i| self.at(i))
    }

    /// The words of `text`, in a list built sorted.
    pub fn get(&self, text: &str) -> Option<Run<'_, T>> {
        let (mut lo, mut hi) = (0, self.len());
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (here, words) = self.at(mid)?;
            match here.cmp(text) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(words),
            }
        }
        None
    }
}

impl<T: Word> Keyed<'_, T> {
    /// The words of every text that occurs in `hay`, each text once, in a
    /// list built sorted. Each place in `hay` is looked up by binary search
    /// for the texts it starts with (longest first: each shorter one is a
    /// prefix of the one before, so it lies before it), among the texts that
    /// begin with its byte (a run of the sorted list, found by binary search
    /// the first time a byte is met: a pass over the list to find them all
    /// cost ~40k instructions for the 10,000-rule bench set's Bash literals
    /// on every event). Looking for each text in turn would cost a pass over
    /// `hay` per text.
    pub fn found_in(&self, hay: &[u8], mut found: impl FnMut(Run<'_, T>)) {
        let mut seen = vec![false; self.len()];
        // The empty text sorts first, and occurs in every text.
        if self.texts.get(0) == Some("") {
            if let (Some((_, words)), Some(once)) = (self.at(0), seen.first_mut()) {
                *once = true;
                found(words);
            }
        }
        // The run of texts beginning with each byte, once met.
        let mut runs: [Option<(usize, usize)>; 256] = [None; 256];
        for start in 0..hay.len() {
            let byte = hay[start];
            let (lo, hi) = *runs[usize::from(byte)].get_or_insert_with(|| {
                let lo = self.first(0, self.len(), |t| t.first().is_some_and(|&b| b >= byte));
                (
                    lo,
                    self.first(lo, self.len(), |t| t.first().is_some_and(|&b| b > byte)),
                )
            });
            let mut rest = &hay[start..];
            // The last text not after `rest`: every text `rest` starts with
            // is it or lies before it (and begins with the same byte).
            while let Some(i) = self
                .upper_bound(lo, hi, rest)
                .checked_sub(1)
                .filter(|&i| i >= lo)
            {
                let Some((text, words)) = self.at(i) else {
                    return;
                };
                let text = text.as_bytes();
                let common = text.iter().zip(rest).take_while(|(a, b)| a == b).count();
                if common == text.len() {
                    if !std::mem::replace(&mut seen[i], true) {
                        found(words);
                    }
                    let Some(shorter) = common.checked_sub(1) else {
                        break;
                    };
                    rest = &rest[..shorter];
                } else if common < rest.len() {
                    // A text `rest` starts with lies between it and `text`,
                    // so `text` starts with it too: it is at most `common` long.
                    rest = &rest[..common];
                } else {
                    // `text` after `rest`: a damaged list.
                    break;
                }
                if rest.is_empty() {
                    break;
                }
            }
        }
    }

    /// The first of texts `lo..hi` after `text` (`hi` when none is; in a
    /// list built sorted).
    fn upper_bound(&self, lo: usize, hi: usize, text: &[u8]) -> usize {
        self.first(lo, hi, |here| here > text)
    }

    /// The first of texts `lo..hi` that is `past` (`hi` when none is): in a
    /// list built sorted, every text after it is too.
    fn first(&self, mut lo: usize, mut hi: usize, past: impl Fn(&[u8]) -> bool) -> usize {
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match self.texts.get(mid) {
                Some(here) if !past(here.as_bytes()) => lo = mid + 1,
                Some(_) => hi = mid,
                None => return lo,
            }
        }
        lo
    }
}

impl<T: Word + fmt::Debug> fmt::Debug for Keyed<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map()
            .entries(self.iter().map(|(t, w)| (t, w.iter().collect::<Vec<T>>())))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Keyed, Texts, Words};
    use std::collections::BTreeMap;

    #[test]
    fn keyed_list_agrees_with_its_map_and_reads_in_place() {
        let mut map: BTreeMap<String, Vec<(u32, u32)>> = BTreeMap::new();
        for (i, name) in ["git", "rm", "npm", "7z", "dd", "gitk", "ärger", "a"]
            .iter()
            .enumerate()
        {
            let i = i as u32;
            map.insert(name.to_string(), vec![(i * 3, 0), (i, 1), (i * 3, 0)]);
        }
        let built = Keyed::new(map.clone());
        let bytes = postcard::to_allocvec(&built).expect("encodes");
        let read: Keyed<'_, (u32, u32)> = postcard::from_bytes(&bytes).expect("decodes");
        for ix in [&built, &read] {
            assert_eq!(ix.iter().count(), map.len());
            for (name, wanted) in &map {
                let mut wanted = wanted.clone();
                wanted.sort_unstable();
                wanted.dedup();
                let got = ix.get(name).map(|r| r.iter().collect::<Vec<_>>());
                assert_eq!(got, Some(wanted), "{name}");
            }
            for absent in ["", "gi", "gitx", "z", "0", "rmdir", "ä"] {
                assert!(ix.get(absent).is_none(), "{absent}");
            }
        }
        assert!(Keyed::<u32>::default().get("git").is_none());
    }

    /// Every text `found_in` reports occurs in the hay, and every text that
    /// occurs is reported, once: with and without the empty text, for texts
    /// that are prefixes of others, and for bytes that begin no text.
    #[test]
    fn texts_found_in_a_hay_are_the_texts_it_contains() {
        let texts = [
            "", "a", "ab", "abc", "b", "bc", "git", "gitk", "rm", "ä", "\u{ff}x",
        ];
        for with_empty in [true, false] {
            let keyed: Keyed<'_, u32> = Keyed::new(
                texts
                    .iter()
                    .enumerate()
                    .filter(|(_, t)| with_empty || !t.is_empty())
                    .map(|(i, t)| (t.to_string(), vec![i as u32])),
            );
            for hay in [
                "",
                "abc",
                "xabcx",
                "gitk rm",
                "zzz",
                "bcab",
                "\u{ff}x ä",
                "git",
            ] {
                let mut got = vec![];
                keyed.found_in(hay.as_bytes(), |words| got.extend(words.iter()));
                got.sort_unstable();
                let want: Vec<u32> = (0..texts.len() as u32)
                    .filter(|&i| {
                        let t = texts[i as usize];
                        (with_empty || !t.is_empty()) && hay.contains(t)
                    })
                    .collect();
                assert_eq!(got, want, "{hay:?} (empty text: {with_empty})");
            }
        }
    }

    #[test]
    fn damaged_lists_read_as_short_or_not_at_all() {
        // Not whole words: refused when decoded.
        let bytes = postcard::to_allocvec(&serde_bytes_of(&[1, 2, 3, 4, 5])).expect("encodes");
        assert!(postcard::from_bytes::<Words<'_, u32>>(&bytes).is_err());
        // Ends past the text, or out of order: those texts are absent.
        let texts: Texts<'_> = Texts {
            all: "abcdef".into(),
            ends: [2u32, 9, 1, 6].into_iter().collect(),
        };
        assert_eq!(texts.get(0), Some("ab"));
        assert_eq!(texts.get(1), None);
        assert_eq!(texts.get(2), None);
        assert_eq!(texts.get(3), Some("bcdef"));
        assert_eq!(texts.iter().count(), 1);
        assert_eq!(texts.get(4), None);
    }

    /// A byte string as postcard writes one.
    fn serde_bytes_of(b: &[u8]) -> Words<'static, u8> {
        Words {
            bytes: b.to_vec().into(),
            word: std::marker::PhantomData,
        }
    }
}
