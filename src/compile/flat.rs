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
use std::sync::OnceLock;

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

/// Texts one after the other, each found by where it ends. Held as bytes:
/// a text is checked to be UTF-8 when it is read as one ([`Texts::get`]),
/// not the whole list when it is decoded (the pack's Bash group holds 4.8 KB
/// of subcommand words that an event reads a few of); comparisons read the
/// bytes alone.
#[derive(Default, Serialize, serde::Deserialize)]
pub struct Texts<'a> {
    #[serde(borrow)]
    all: Words<'a, u8>,
    #[serde(borrow)]
    ends: Words<'a, u32>,
}

impl Texts<'_> {
    /// The same list, owning its bytes.
    pub fn into_owned(self) -> Texts<'static> {
        Texts {
            all: self.all.into_owned(),
            ends: self.ends.into_owned(),
        }
    }

    /// How many.
    pub fn len(&self) -> usize {
        self.ends.run().len()
    }

    /// None at all?
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// The `i`th text's bytes (`None` past the end or in a damaged list).
    pub fn bytes(&self, i: usize) -> Option<&[u8]> {
        let ends = self.ends.run();
        let start = match i {
            0 => 0,
            _ => ends.get(i - 1)? as usize,
        };
        self.all.bytes.get(start..ends.get(i)? as usize)
    }

    /// The `i`th text (`None` past the end, in a damaged list, or when its
    /// bytes are not UTF-8).
    pub fn get(&self, i: usize) -> Option<&str> {
        std::str::from_utf8(self.bytes(i)?).ok()
    }

    /// Every text, in order.
    pub fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.len()).map_while(|i| self.get(i))
    }

    /// Every text's bytes, in order (none checked to be UTF-8: many short
    /// texts checked one by one cost more than the list checked whole).
    pub fn iter_bytes(&self) -> impl Iterator<Item = &[u8]> {
        (0..self.len()).map_while(|i| self.bytes(i))
    }
}

impl Texts<'static> {
    /// Byte strings one after the other (each read back with
    /// [`Texts::bytes`]; [`Texts::get`] answers only those that are UTF-8).
    pub fn of_bytes<B: AsRef<[u8]>>(items: impl IntoIterator<Item = B>) -> Texts<'static> {
        let mut all = vec![];
        let mut ends = vec![];
        for b in items {
            all.extend_from_slice(b.as_ref());
            ends.push(all.len() as u32);
        }
        Texts {
            all: Words {
                bytes: Cow::Owned(all),
                word: PhantomData,
            },
            ends: ends.into_iter().collect(),
        }
    }
}

impl<S: AsRef<str>> FromIterator<S> for Texts<'static> {
    fn from_iter<I: IntoIterator<Item = S>>(texts: I) -> Self {
        Texts::of_bytes(texts.into_iter().map(|t| t.as_ref().as_bytes().to_vec()))
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

    /// How many texts.
    pub fn len(&self) -> usize {
        self.texts.len().min(self.ends.run().len())
    }

    /// None at all?
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The `i`th text's bytes and its words (`None` past the end or in a
    /// damaged list).
    fn at(&self, i: usize) -> Option<(&[u8], Run<'_, T>)> {
        let ends = self.ends.run();
        let start = match i {
            0 => 0,
            _ => ends.get(i - 1)? as usize,
        };
        let words = self.words.run().slice(start, ends.get(i)? as usize)?;
        Some((self.texts.bytes(i)?, words))
    }

    /// Every text with its words.
    pub fn iter(&self) -> impl Iterator<Item = (&str, Run<'_, T>)> {
        (0..self.len()).map_while(|i| {
            let (text, words) = self.at(i)?;
            Some((std::str::from_utf8(text).ok()?, words))
        })
    }

    /// Every text's bytes with its words.
    pub fn iter_bytes(&self) -> impl Iterator<Item = (&[u8], Run<'_, T>)> {
        (0..self.len()).map_while(|i| self.at(i))
    }

    /// The words of `text`, in a list built sorted (texts compare as their
    /// bytes do).
    pub fn get(&self, text: &str) -> Option<Run<'_, T>> {
        let text = text.as_bytes();
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
        if self.texts.bytes(0) == Some(b"") {
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
            self.found_at(lo, hi, &hay[start..], &mut seen, &mut found);
        }
    }

    /// Report the texts `lo..hi` (those that begin with `rest`'s first byte)
    /// that `rest` starts with, each once (`seen`, one flag per text).
    fn found_at(
        &self,
        lo: usize,
        hi: usize,
        mut rest: &[u8],
        seen: &mut [bool],
        found: &mut impl FnMut(Run<'_, T>),
    ) {
        // The last text not after `rest`: every text `rest` starts with
        // is it or lies before it (and begins with the same byte).
        while let Some(i) = self
            .upper_bound(lo, hi, rest)
            .checked_sub(1)
            .filter(|&i| i >= lo)
        {
            let (Some((text, words)), Some(once)) = (self.at(i), seen.get_mut(i)) else {
                return;
            };
            let common = text.iter().zip(rest).take_while(|(a, b)| a == b).count();
            if common == text.len() {
                if !std::mem::replace(once, true) {
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
            match self.texts.bytes(mid) {
                Some(here) if !past(here) => lo = mid + 1,
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

/// Where a record of an artifact is: its offset (after the header) and length.
pub type Span = (u64, u32);

/// A record's body: its bytes after its 16-byte tag (read with the tag, and
/// not moved: a copy of the 10,000-rule bench set's Bash group cost ~0.14M
/// instructions).
pub struct Body(pub Cow<'static, [u8]>);

impl std::ops::Deref for Body {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        self.0.get(16..).unwrap_or_default()
    }
}

/// The records of an artifact that [`Part`]s point to, each checked against
/// its tag when read (`None`: it does not verify).
pub trait Parts {
    /// The body of the record at `span`, checked.
    fn part(&self, span: Span) -> Option<Body>;
}

/// A set built in this process has every part in place: nothing to read.
pub struct InPlace;

impl Parts for InPlace {
    fn part(&self, _: Span) -> Option<Body> {
        None
    }
}

/// A list read in place ([`Words`], [`Keyed`]) from the body of a record
/// of its own: borrowed from it when it lies in the binary (the embedded
/// pack's), else copied out of it.
pub trait Decode: Sized {
    /// The list in `body` (`None` if it does not decode).
    fn decode(body: Body) -> Option<Self>;
}

/// The bytes of a body after its tag, when they lie in the binary.
fn in_binary(body: &Body) -> Option<&'static [u8]> {
    match body.0 {
        Cow::Borrowed(b) => Some(b.get(16..).unwrap_or_default()),
        Cow::Owned(_) => None,
    }
}

impl<T: Word> Decode for Words<'_, T> {
    fn decode(body: Body) -> Option<Self> {
        match in_binary(&body) {
            Some(b) => postcard::from_bytes::<Words<'static, T>>(b).ok(),
            None => postcard::from_bytes::<Words<'_, T>>(&body)
                .ok()
                .map(Words::into_owned),
        }
    }
}

impl<T: Word> Decode for Keyed<'_, T> {
    fn decode(body: Body) -> Option<Self> {
        // (A copy of the pack's Bash program and literal pieces an event
        // reads cost ~5k instructions for a harmless Bash; callgrind.)
        match in_binary(&body) {
            Some(b) => postcard::from_bytes::<Keyed<'static, T>>(b).ok(),
            None => postcard::from_bytes::<Keyed<'_, T>>(&body)
                .ok()
                .map(Keyed::into_owned),
        }
    }
}

/// A part of a record that an artifact keeps in a record of its own
/// ([`Part::Apart`]), read (and authenticated) only when an event uses it,
/// once per process: a group of rules holds lists an event never looks at
/// (the rules of a command that does not parse) or looks at a few entries
/// of (the rules of one program among hundreds), and an event authenticates
/// every byte of each record it reads.
pub enum Part<T> {
    /// Here (always, in a set built in this process).
    Here(T),
    /// In the record at this span, once read.
    Apart(Span, std::sync::OnceLock<Option<T>>),
}

impl<T: Decode> Part<T> {
    /// The part, read from its record if it is apart (`None`: that record
    /// does not verify or decode).
    pub fn get(&self, parts: &dyn Parts) -> Option<&T> {
        match self {
            Part::Here(t) => Some(t),
            Part::Apart(span, read) => read.get_or_init(|| T::decode(parts.part(*span)?)).as_ref(),
        }
    }
}

impl<T: Serialize> Part<T> {
    /// Put this part in a record of its own (`put` writes one and says
    /// where); `None` when it does not serialize.
    pub fn apart(&mut self, put: &mut dyn FnMut(Vec<u8>) -> Span) -> Option<()> {
        if let Part::Here(t) = self {
            let span = put(postcard::to_allocvec(t).ok()?);
            *self = Part::Apart(span, std::sync::OnceLock::new());
        }
        Some(())
    }
}

impl<T> Part<T> {
    /// Where its record is, if it is apart.
    pub fn span(&self) -> Option<Span> {
        match self {
            Part::Here(_) => None,
            Part::Apart(span, _) => Some(*span),
        }
    }
}

impl<T: Default> Default for Part<T> {
    fn default() -> Self {
        Part::Here(T::default())
    }
}

impl<T: fmt::Debug> fmt::Debug for Part<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Part::Here(t) => t.fmt(f),
            Part::Apart(span, _) => write!(f, "Apart({span:?})"),
        }
    }
}

impl<T: Word> From<Words<'static, T>> for Part<Words<'static, T>> {
    fn from(w: Words<'static, T>) -> Self {
        Part::Here(w)
    }
}

/// How a [`Part`] is stored: the list, or the span of its record.
#[derive(Serialize, serde::Deserialize)]
enum Stored<T> {
    Here(T),
    Apart(Span),
}

impl<T: Serialize> Serialize for Part<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Part::Here(t) => Stored::Here(t).serialize(s),
            Part::Apart(span, _) => Stored::<&T>::Apart(*span).serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Part<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match Stored::<T>::deserialize(d)? {
            Stored::Here(t) => Part::Here(t),
            Stored::Apart(span) => Part::Apart(span, std::sync::OnceLock::new()),
        })
    }
}

/// A [`Keyed`] list in pieces, one per first byte of its texts (the empty
/// text's words apart), each piece a [`Part`]: an event reads the pieces of
/// the bytes it has (a program's first letter; the bytes of a command line,
/// for its literals), not the whole list (the 10,000-rule bench set's Bash
/// programs and literals were 82 KB, authenticated on every Bash event).
///
/// A piece larger than [`SPLIT_BYTES`] is split by the texts' second byte
/// (the one-byte text apart): a command line's bytes are a few of the 256,
/// but each of them began a piece of hundreds of the 10,000-rule bench set's
/// literals, 32 KB authenticated (~0.14M instructions) to find the few that
/// begin with the pairs of bytes `npm test -- --watch=false` has.
#[derive(Serialize, serde::Deserialize)]
#[serde(bound(serialize = "", deserialize = "T: Word"))]
pub struct Shards<'a, T> {
    /// The words of the empty text, which occurs in every text.
    #[serde(borrow)]
    empty: Words<'a, T>,
    /// What each piece holds ([`piece_key`]), ascending, one per piece.
    #[serde(borrow)]
    keys: Words<'a, u32>,
    /// The texts of each key, with their words.
    #[serde(borrow)]
    pieces: Pieces<'a, T>,
}

/// The pieces of a [`Shards`] list: in place (a set built in this
/// process), or each in a record of its own, found by its span. Stored
/// apart, the spans are one list of fixed-width words that decoding takes
/// a slice of, and a piece is read (authenticated, decoded) the first time
/// an event uses it: the pack's Bash group held ~250 pieces, and decoding
/// each into a [`Part`] of its own cost ~0.03M instructions on every Bash
/// event.
pub enum Pieces<'a, T> {
    /// In place.
    Here(Vec<Keyed<'a, T>>),
    /// The span of each piece's record, and the pieces read so far (made
    /// when the first one is read).
    Apart(Words<'a, Span>, OnceLock<Box<[Piece<T>]>>),
}

/// A piece of [`Pieces::Apart`], once read (`None`: its record does not
/// verify or decode).
type Piece<T> = OnceLock<Option<Keyed<'static, T>>>;

impl<T> Default for Pieces<'_, T> {
    fn default() -> Self {
        Pieces::Here(vec![])
    }
}

impl<T: Word> Pieces<'_, T> {
    fn len(&self) -> usize {
        match self {
            Pieces::Here(v) => v.len(),
            Pieces::Apart(spans, _) => spans.run().len(),
        }
    }

    /// Piece `i` (`None` past the end, or when its record does not verify
    /// or decode).
    fn get(&self, i: usize, parts: &dyn Parts) -> Option<&Keyed<'_, T>> {
        match self {
            Pieces::Here(v) => v.get(i),
            Pieces::Apart(spans, read) => {
                let span = spans.run().get(i)?;
                let read =
                    read.get_or_init(|| (0..spans.run().len()).map(|_| OnceLock::new()).collect());
                read.get(i)?
                    .get_or_init(|| Keyed::decode(parts.part(span)?))
                    .as_ref()
            }
        }
    }
}

/// How [`Pieces`] are stored: the pieces, or the spans of their records.
#[derive(Serialize, serde::Deserialize)]
#[serde(bound(serialize = "", deserialize = "T: Word"))]
enum StoredPieces<'a, T> {
    #[serde(borrow)]
    Here(Vec<Keyed<'a, T>>),
    #[serde(borrow)]
    Apart(Words<'a, Span>),
}

impl<T> Serialize for Pieces<'_, T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Pieces::Here(v) => s.serialize_newtype_variant("StoredPieces", 0, "Here", v),
            Pieces::Apart(spans, _) => {
                s.serialize_newtype_variant("StoredPieces", 1, "Apart", spans)
            }
        }
    }
}

impl<'de: 'a, 'a, T: Word> Deserialize<'de> for Pieces<'a, T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(match StoredPieces::<'a, T>::deserialize(d)? {
            StoredPieces::Here(v) => Pieces::Here(v),
            StoredPieces::Apart(spans) => Pieces::Apart(spans, OnceLock::new()),
        })
    }
}

impl<T: Word + fmt::Debug> fmt::Debug for Pieces<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Pieces::Here(v) => f.debug_list().entries(v).finish(),
            Pieces::Apart(spans, _) => write!(f, "Apart({spans:?})"),
        }
    }
}

/// A piece of [`Shards::found_in`], once read, and which of its texts were
/// found.
type Met<'k, T> = Option<(&'k Keyed<'k, T>, Vec<bool>)>;

/// A piece larger than this (bytes, as stored) is split by second byte.
pub const SPLIT_BYTES: usize = 1024;

/// The key of a piece: its texts' first byte, then which of them it holds:
/// every one ([`WHOLE`]), the one-byte text ([`ALONE`]), or those whose
/// second byte is `b` (`b + 1`). Sorted as the texts are.
fn piece_key(first: u8, which: u32) -> u32 {
    (u32::from(first) << 16) | which
}

/// Every text beginning with the byte.
const WHOLE: u32 = 0x1ff;
/// The text that is the byte alone.
const ALONE: u32 = 0;

/// The `which` of the texts whose second byte is `b`.
fn second(b: u8) -> u32 {
    u32::from(b) + 1
}

impl Word for u8 {
    const SIZE: usize = 1;
    fn read(bytes: &[u8]) -> Self {
        bytes[0]
    }
    fn write(self, out: &mut Vec<u8>) {
        out.push(self);
    }
}

impl<T> Default for Shards<'_, T> {
    fn default() -> Self {
        Shards {
            empty: Words::default(),
            keys: Words::default(),
            pieces: Pieces::default(),
        }
    }
}

impl<T: Word + Ord> Shards<'static, T> {
    /// From texts and their words, sorted by text (each text's words sorted
    /// and deduplicated).
    pub fn new(entries: impl IntoIterator<Item = (String, Vec<T>)>) -> Self {
        Shards::split_above(entries, SPLIT_BYTES)
    }

    /// [`Self::new`], splitting the pieces larger than `split` bytes.
    fn split_above(entries: impl IntoIterator<Item = (String, Vec<T>)>, split: usize) -> Self {
        let mut empty: Vec<T> = vec![];
        let mut by_first: std::collections::BTreeMap<u8, Vec<(String, Vec<T>)>> =
            std::collections::BTreeMap::new();
        for (text, words) in entries {
            match text.as_bytes().first() {
                None => empty.extend(words),
                Some(&b) => by_first.entry(b).or_default().push((text, words)),
            }
        }
        empty.sort_unstable();
        empty.dedup();
        let mut keys = vec![];
        let mut pieces = vec![];
        for (first, mut texts) in by_first {
            texts.sort_by(|a, b| a.0.cmp(&b.0));
            let whole = Keyed::new(texts.clone());
            let size = postcard::to_allocvec(&whole).map_or(0, |b| b.len());
            if size <= split {
                keys.push(piece_key(first, WHOLE));
                pieces.push(whole);
                continue;
            }
            let mut by_second: std::collections::BTreeMap<u32, Vec<(String, Vec<T>)>> =
                std::collections::BTreeMap::new();
            for (text, words) in texts {
                let which = text.as_bytes().get(1).map_or(ALONE, |&b| second(b));
                by_second.entry(which).or_default().push((text, words));
            }
            for (which, texts) in by_second {
                keys.push(piece_key(first, which));
                pieces.push(Keyed::new(texts));
            }
        }
        Shards {
            empty: empty.into_iter().collect(),
            keys: keys.into_iter().collect(),
            pieces: Pieces::Here(pieces),
        }
    }
}

impl<T: Word> Shards<'_, T> {
    /// Where `key` is among the keys `lo..hi` (`None` when it is not).
    fn find(&self, lo: usize, hi: usize, key: u32) -> Option<usize> {
        let keys = self.keys.run();
        let (mut lo, mut hi) = (lo, hi.min(keys.len()));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            match keys.get(mid)?.cmp(&key) {
                std::cmp::Ordering::Less => lo = mid + 1,
                std::cmp::Ordering::Greater => hi = mid,
                std::cmp::Ordering::Equal => return Some(mid),
            }
        }
        None
    }

    /// The keys of the pieces of texts beginning with `byte`: `lo..hi`.
    fn of_byte(&self, byte: u8) -> (usize, usize) {
        let keys = self.keys.run();
        let first = |past: u32| {
            let (mut lo, mut hi) = (0, keys.len());
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                match keys.get(mid) {
                    Some(k) if k < past => lo = mid + 1,
                    _ => hi = mid,
                }
            }
            lo
        };
        (
            first(piece_key(byte, 0)),
            first(piece_key(byte, 0).saturating_add(1 << 16)),
        )
    }

    /// Piece `i` (`None` when its record does not verify).
    fn piece(&self, i: usize, parts: &dyn Parts) -> Option<&Keyed<'_, T>> {
        self.pieces.get(i, parts)
    }

    /// The piece that holds `text` (not empty), if any: `Some(None)` when
    /// there is none, `None` when its record does not verify.
    fn piece_of(&self, text: &[u8], parts: &dyn Parts) -> Option<Option<&Keyed<'_, T>>> {
        let Some(&first) = text.first() else {
            return Some(None);
        };
        let (lo, hi) = self.of_byte(first);
        let at = self.find(lo, hi, piece_key(first, WHOLE)).or_else(|| {
            let which = text.get(1).map_or(ALONE, |&b| second(b));
            self.find(lo, hi, piece_key(first, which))
        });
        match at {
            Some(i) => self.piece(i, parts).map(Some),
            None => Some(None),
        }
    }

    /// The words of `text` (`Some(None)`: it is not there; `None`: a piece
    /// does not verify).
    pub fn get(&self, text: &str, parts: &dyn Parts) -> Option<Option<Run<'_, T>>> {
        if text.is_empty() {
            return Some((!self.empty.is_empty()).then(|| self.empty.run()));
        }
        Some(
            self.piece_of(text.as_bytes(), parts)?
                .and_then(|k| k.get(text)),
        )
    }

    /// The words of every text that occurs in `hay`, each text once, as
    /// [`Keyed::found_in`] finds them, reading the pieces of the bytes (and
    /// pairs of bytes, where a piece is split) `hay` has (`None`: one does
    /// not verify).
    pub fn found_in(
        &self,
        hay: &[u8],
        parts: &dyn Parts,
        mut found: impl FnMut(Run<'_, T>),
    ) -> Option<()> {
        if !self.empty.is_empty() {
            found(self.empty.run());
        }
        // Each piece, once read, and which of its texts were found.
        let mut met: Vec<Met<'_, T>> = vec![];
        met.resize_with(self.pieces.len(), || None);
        // Each byte's keys, once met: the piece of all its texts, or the
        // range of its split pieces.
        let mut bytes: [Option<(usize, usize, bool)>; 256] = [None; 256];
        for start in 0..hay.len() {
            let byte = hay[start];
            let (lo, hi, whole) = *bytes[usize::from(byte)].get_or_insert_with(|| {
                let (lo, hi) = self.of_byte(byte);
                match self.find(lo, hi, piece_key(byte, WHOLE)) {
                    Some(i) => (i, i + 1, true),
                    None => (lo, hi, false),
                }
            });
            if lo >= hi {
                continue;
            }
            let rest = &hay[start..];
            if whole {
                self.visit(lo, rest, parts, &mut met, &mut found)?;
                continue;
            }
            if let Some(i) = self.find(lo, hi, piece_key(byte, ALONE)) {
                self.visit(i, rest, parts, &mut met, &mut found)?;
            }
            if let Some(i) = rest
                .get(1)
                .and_then(|&b| self.find(lo, hi, piece_key(byte, second(b))))
            {
                self.visit(i, rest, parts, &mut met, &mut found)?;
            }
        }
        Some(())
    }

    /// Report the texts of piece `i` that `rest` starts with, each once
    /// (reading the piece the first time: `None` when it does not verify).
    fn visit<'s>(
        &'s self,
        i: usize,
        rest: &[u8],
        parts: &dyn Parts,
        met: &mut [Met<'s, T>],
        found: &mut impl FnMut(Run<'_, T>),
    ) -> Option<()> {
        let Some(slot) = met.get_mut(i) else {
            return Some(());
        };
        if slot.is_none() {
            let piece = self.piece(i, parts)?;
            *slot = Some((piece, vec![false; piece.len()]));
        }
        if let Some((piece, seen)) = slot {
            piece.found_at(0, piece.len(), rest, seen, found);
        }
        Some(())
    }

    /// Every text with its words, every piece read (`None`: one does not
    /// verify).
    pub fn each(&self, parts: &dyn Parts, mut f: impl FnMut(&str, Run<'_, T>)) -> Option<()> {
        if !self.empty.is_empty() {
            f("", self.empty.run());
        }
        for i in 0..self.pieces.len() {
            for (text, words) in self.piece(i, parts)?.iter() {
                f(text, words);
            }
        }
        Some(())
    }

    /// Put each piece in a record of its own.
    pub fn apart(&mut self, put: &mut dyn FnMut(Vec<u8>) -> Span) -> Option<()> {
        if let Pieces::Here(pieces) = &self.pieces {
            let mut spans = vec![];
            for p in pieces {
                spans.push(put(postcard::to_allocvec(p).ok()?));
            }
            self.pieces = Pieces::Apart(spans.into_iter().collect(), OnceLock::new());
        }
        Some(())
    }

    /// Read every piece (`None`: one does not verify).
    pub fn read_all(&self, parts: &dyn Parts) -> Option<()> {
        (0..self.pieces.len()).try_for_each(|i| self.piece(i, parts).map(drop))
    }

    /// The spans of the pieces kept apart.
    pub fn spans(&self) -> Vec<Span> {
        match &self.pieces {
            Pieces::Here(_) => vec![],
            Pieces::Apart(spans, _) => spans.iter().collect(),
        }
    }
}

impl<T: Word + fmt::Debug> fmt::Debug for Shards<'_, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Shards")
            .field("empty", &self.empty)
            .field("keys", &self.keys)
            .field("pieces", &self.pieces)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::{Body, Keyed, Parts, Shards, Span, Texts, Words};
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

    /// An artifact's records for [`Part`]s, in memory: each part's bytes
    /// behind a 16-byte tag, and a record a test damaged fails to verify.
    #[derive(Default)]
    struct Records {
        records: std::cell::RefCell<Vec<Vec<u8>>>,
        damaged: std::cell::Cell<Option<usize>>,
        read: std::cell::Cell<usize>,
    }

    impl Records {
        fn put(&self, bytes: Vec<u8>) -> Span {
            let mut records = self.records.borrow_mut();
            let mut record = vec![0u8; 16];
            record.extend(bytes);
            records.push(record);
            ((records.len() - 1) as u64, 0)
        }
    }

    impl Parts for Records {
        fn part(&self, (at, _): Span) -> Option<Body> {
            self.read.set(self.read.get() + 1);
            if self.damaged.get() == Some(at as usize) {
                return None;
            }
            let record = self.records.borrow().get(at as usize)?.clone();
            Some(Body(record.into()))
        }
    }

    /// A keyed list in pieces by first byte answers as the whole list does,
    /// whether its pieces are in place or in records of their own, reads only
    /// the pieces of the bytes it is asked about, and fails (`None`) when one
    /// of those does not verify.
    #[test]
    fn shards_agree_with_the_whole_list_and_read_only_the_pieces_they_need() {
        let texts = [
            "", "a", "ab", "abc", "b", "bc", "git", "gitk", "rm", "ä", "\u{ff}x",
        ];
        let entries = || {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (t.to_string(), vec![i as u32, 100 + i as u32]))
        };
        let whole: Keyed<'_, u32> = Keyed::new(entries());
        let here = Shards::new(entries());
        let records = Records::default();
        let mut apart = Shards::new(entries());
        apart.apart(&mut |b| records.put(b)).unwrap();
        let bytes = postcard::to_allocvec(&apart).unwrap();
        let apart: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(apart.spans().len(), here.pieces.len());
        assert_eq!(here.spans().len(), 0);
        let hays = [
            "",
            "abc",
            "xabcx",
            "gitk rm",
            "zzz",
            "bcab",
            "\u{ff}x ä",
            "git",
        ];
        let agrees = |shards: &Shards<'_, u32>| {
            for t in texts.iter().chain(&["gi", "gitx", "z", "rmdir", "Git"]) {
                let got = shards
                    .get(t, &records)
                    .unwrap()
                    .map(|r| r.iter().collect::<Vec<_>>());
                let want = whole.get(t).map(|r| r.iter().collect::<Vec<_>>());
                assert_eq!(got, want, "{t:?}");
            }
            for hay in hays {
                let (mut got, mut want) = (vec![], vec![]);
                shards
                    .found_in(hay.as_bytes(), &records, |w| got.extend(w.iter()))
                    .unwrap();
                whole.found_in(hay.as_bytes(), |w| want.extend(w.iter()));
                got.sort_unstable();
                want.sort_unstable();
                assert_eq!(got, want, "{hay:?}");
            }
        };
        agrees(&here);
        agrees(&apart);
        // Only the pieces of the bytes asked about are read (each once).
        let records2 = Records {
            records: records.records.clone(),
            ..Records::default()
        };
        let fresh: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
        fresh.found_in(b"rm", &records2, |_| {}).unwrap();
        fresh.get("rmdir", &records2).unwrap();
        assert_eq!(
            records2.read.get(),
            1,
            "the piece of `r`, once (`m` begins no text)"
        );
        // A piece that does not verify: no answer, not a partial one.
        let damaged = Records {
            records: records.records.clone(),
            ..Records::default()
        };
        let piece_of_g = fresh
            .spans()
            .into_iter()
            .find(|&(at, _)| {
                postcard::from_bytes::<Keyed<'_, u32>>(&records.records.borrow()[at as usize][16..])
                    .unwrap()
                    .get("git")
                    .is_some()
            })
            .unwrap();
        damaged.damaged.set(Some(piece_of_g.0 as usize));
        let fresh: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
        assert!(fresh.get("git", &damaged).is_none());
        assert!(fresh.found_in(b"a gitk", &damaged, |_| {}).is_none());
        assert!(fresh.read_all(&damaged).is_none());
        assert!(
            fresh.get("rm", &damaged).is_some(),
            "other pieces still read"
        );
    }

    /// A piece split by second byte (each of its records small) answers as
    /// the whole list does, and a text, or a place in a hay, reads only the
    /// piece of its first two bytes (and the one-byte text's).
    #[test]
    fn split_pieces_agree_with_the_whole_list_and_read_only_their_pair() {
        let mut texts: Vec<String> = vec!["".into(), "a".into(), "b".into(), "ä".into()];
        for second in ["a", "b", "z", "-", "ä"] {
            for n in 0..40 {
                texts.push(format!("a{second}{n:02}"));
            }
        }
        texts.push("ab".into());
        let entries = || {
            texts
                .iter()
                .enumerate()
                .map(|(i, t)| (t.clone(), vec![i as u32]))
                .collect::<Vec<_>>()
        };
        let whole: Keyed<'_, u32> = Keyed::new({
            let mut e = entries();
            e.sort_by(|a, b| a.0.cmp(&b.0));
            e
        });
        let records = Records::default();
        let mut apart = Shards::split_above(entries(), 256);
        apart.apart(&mut |b| records.put(b)).unwrap();
        let bytes = postcard::to_allocvec(&apart).unwrap();
        // `a`'s texts in six pieces (itself, and by five second bytes);
        // `b` and `ä` whole.
        assert_eq!(apart.spans().len(), 8);
        let read = |t: &str| {
            let fresh: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
            let counted = Records {
                records: records.records.clone(),
                ..Records::default()
            };
            let got = fresh
                .get(t, &counted)
                .unwrap()
                .map(|r| r.iter().collect::<Vec<_>>());
            assert_eq!(got, whole.get(t).map(|r| r.iter().collect()), "{t:?}");
            counted.read.get()
        };
        for t in texts
            .iter()
            .map(String::as_str)
            .chain(["ac", "az99", "a-0", "äb"])
        {
            assert!(read(t) <= 1, "{t:?}");
        }
        for hay in [
            "",
            "ab07 az39",
            "xa-00a",
            "aä13",
            "a",
            "ba",
            "zzz",
            "ab",
            "aaaa01",
        ] {
            let fresh: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
            let counted = Records {
                records: records.records.clone(),
                ..Records::default()
            };
            let (mut got, mut want) = (vec![], vec![]);
            fresh
                .found_in(hay.as_bytes(), &counted, |w| got.extend(w.iter()))
                .unwrap();
            whole.found_in(hay.as_bytes(), |w| want.extend(w.iter()));
            got.sort_unstable();
            want.sort_unstable();
            assert_eq!(got, want, "{hay:?}");
            // Each pair of bytes reads at most its piece and the one-byte
            // text's: never the whole of `a`'s texts.
            assert!(counted.read.get() <= 4, "{hay:?}: {}", counted.read.get());
        }
        let mut each = vec![];
        let fresh: Shards<'_, u32> = postcard::from_bytes(&bytes).unwrap();
        fresh
            .each(&records, |t, w| {
                each.push((t.to_string(), w.iter().collect::<Vec<_>>()))
            })
            .unwrap();
        each.sort();
        let mut want: Vec<_> = whole
            .iter()
            .map(|(t, w)| (t.to_string(), w.iter().collect::<Vec<_>>()))
            .collect();
        want.sort();
        assert_eq!(each, want);
    }

    #[test]
    fn damaged_lists_read_as_short_or_not_at_all() {
        // Not whole words: refused when decoded.
        let bytes = postcard::to_allocvec(&serde_bytes_of(&[1, 2, 3, 4, 5])).expect("encodes");
        assert!(postcard::from_bytes::<Words<'_, u32>>(&bytes).is_err());
        // Ends past the text, or out of order: those texts are absent.
        let texts: Texts<'_> = Texts {
            all: serde_bytes_of(b"abcdef"),
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
