//! Declaring a scenario table once: [`table!`](crate::table) turns a struct whose fields carry
//! doc comments and value types into
//! - a serde-deserialized struct that keeps every value as written ([`V`]), so that a second
//!   pass can check all of them and report every problem, and collects undeclared keys so that
//!   they are reported as unknown (with a suggestion);
//! - the list of its keys with their docs and types ([`Table::KEYS`]), from which the JSON
//!   Schema and the key tables of `docs/scenario.md` are generated.

use std::marker::PhantomData;

use serde::{Deserialize, Deserializer};
use toml::Value;

use super::check::Ctx;

/// What a value type tells the docs and the schema.
pub struct TypeDoc {
    /// How the docs name the type, e.g. `time` or `integer 64–9000`.
    pub name: String,
    /// Its JSON Schema.
    pub schema: serde_json::Value,
}

/// A value type of the scenario file: how to check a TOML value and what it becomes.
pub trait Leaf {
    /// The checked, typed value.
    type Out;
    /// Check `v`, found at dotted key `key`; `None` after recording why it is unusable.
    fn read(ctx: &mut Ctx, v: &Value, key: &str) -> Option<Self::Out>;
    /// Name and schema of the type.
    fn doc() -> TypeDoc;
}

/// One declared key: its name, doc comment and type.
pub struct KeyDoc {
    /// The key as written in the file.
    pub name: &'static str,
    /// Its doc comment: meaning, unit, default.
    pub doc: &'static str,
    /// Its type.
    pub ty: fn() -> TypeDoc,
    /// The keys of its table, when its value is a declared table.
    pub table: Option<fn() -> &'static [KeyDoc]>,
}

/// A declared table of the scenario file.
pub trait Table {
    /// Its keys, in declaration order.
    const KEYS: &'static [KeyDoc];
    /// Its doc comment.
    const DOC: &'static str;
}

/// A value of a declared key, kept as written (`raw`) with the dotted key it was found at;
/// `T` is its declared type, read by [`Ctx::get`].
pub struct V<T> {
    /// The TOML value, `None` when the key is absent.
    pub raw: Option<Value>,
    /// The dotted key (`switch.role.tor.lossless.xon`), set after deserializing.
    pub key: String,
    /// The key's last part (`xon`).
    pub name: &'static str,
    ty: PhantomData<fn() -> T>,
}

impl<T> Default for V<T> {
    fn default() -> Self {
        V {
            raw: None,
            key: String::new(),
            name: "",
            ty: PhantomData,
        }
    }
}

impl<T> std::fmt::Debug for V<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}={:?}", self.key, self.raw)
    }
}

impl<'de, T> Deserialize<'de> for V<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(V {
            raw: Some(Value::deserialize(d)?),
            ..V::default()
        })
    }
}

impl<T> V<T> {
    /// True when the key is in the file.
    pub fn given(&self) -> bool {
        self.raw.is_some()
    }
    /// Name this value `prefix.name` (called by the generated reader).
    pub fn set_key(&mut self, prefix: &str, name: &'static str) {
        self.key = super::check::at(prefix, name);
        self.name = name;
    }
}

impl Ctx {
    /// The checked value of `f`; `None` when absent or unusable (after recording why).
    pub fn get<T: Leaf>(&mut self, f: &V<T>) -> Option<T::Out> {
        T::read(self, f.raw.as_ref()?, &f.key)
    }
    /// The checked value of `f`, `default` when absent; `None` when unusable.
    pub fn or<T: Leaf>(&mut self, f: &V<T>, default: T::Out) -> Option<T::Out> {
        match &f.raw {
            Some(v) => T::read(self, v, &f.key),
            None => Some(default),
        }
    }
    /// The checked value of a required key; a missing key is an error (`what` it should be).
    pub fn req<T: Leaf>(&mut self, f: &V<T>, what: &str) -> Option<T::Out> {
        if f.raw.is_none() {
            let name = f.name;
            self.err(&f.key, format!("missing required key `{name}` ({what})"));
        }
        self.get(f)
    }
}

/// Declare a scenario table: a struct of [`V`] fields plus its [`Table`] and [`Leaf`]
/// impls. Each field's doc comment is the key's documentation (meaning, unit, default).
///
/// With `pub struct Name => Params`, a key written `name: Type => field` is stored into
/// `Params::field` (a dotted path reaches into a nested struct) by the generated
/// `Name::apply`, through [`Store`]; keys without `=> field` are left to hand-written code.
#[macro_export]
macro_rules! table {
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident => $target:ty {
            $( $(#[doc = $doc:literal])* $field:ident : $ty:ty $(=> $($to:ident).+)? ),* $(,)?
        }
    ) => {
        $crate::table! {
            $(#[doc = $sdoc])*
            pub struct $name { $( $(#[doc = $doc])* $field: $ty, )* }
        }

        impl $name {
            /// Store every key of this table that is given and valid into `p`.
            pub fn apply(&self, ctx: &mut $crate::config::check::Ctx, p: &mut $target) {
                $($(
                    if let Some(x) = ctx.get(&self.$field) {
                        $crate::config::declare::Store::store(x, ctx, &mut p.$($to).+);
                    }
                )?)*
            }
        }

        impl $crate::config::declare::Store<$target> for $name {
            fn store(self, ctx: &mut $crate::config::check::Ctx, to: &mut $target) {
                self.apply(ctx, to);
            }
        }
    };
    (
        $(#[doc = $sdoc:literal])*
        pub struct $name:ident {
            $( $(#[doc = $doc:literal])* $field:ident : $ty:ty ),* $(,)?
        }
    ) => {
        $(#[doc = $sdoc])*
        #[derive(Debug, Default, serde::Deserialize)]
        #[serde(default)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: $crate::config::declare::V<$ty>, )*
            /// Keys that are not declared (each one is reported as unknown).
            #[serde(flatten)]
            pub unknown: toml::Table,
        }

        impl $crate::config::declare::Table for $name {
            const KEYS: &'static [$crate::config::declare::KeyDoc] = &[$(
                $crate::config::declare::KeyDoc {
                    name: stringify!($field),
                    doc: concat!($($doc, "\n"),*),
                    ty: <$ty as $crate::config::declare::Leaf>::doc,
                    table: <$ty as $crate::config::declare::SubTable>::TABLE,
                },
            )*];
            const DOC: &'static str = concat!($($sdoc, "\n"),*);
        }

        impl $crate::config::declare::SubTable for $name {
            const TABLE: Option<fn() -> &'static [$crate::config::declare::KeyDoc]> =
                Some(|| <$name as $crate::config::declare::Table>::KEYS);
        }

        impl $crate::config::declare::Leaf for $name {
            type Out = $name;
            fn read(
                ctx: &mut $crate::config::check::Ctx,
                v: &toml::Value,
                key: &str,
            ) -> Option<$name> {
                let t = ctx.table(v, key)?;
                let mut s: $name = match toml::Value::Table(t.clone()).try_into() {
                    Ok(s) => s,
                    Err(e) => {
                        ctx.err(key, e.to_string());
                        return None;
                    }
                };
                $( s.$field.set_key(key, stringify!($field)); )*
                ctx.unknown(&s.unknown, key, &[$(stringify!($field)),*]);
                Some(s)
            }
            fn doc() -> $crate::config::declare::TypeDoc {
                $crate::config::schema::table_doc::<$name>()
            }
        }
    };
}

/// Whether a value type is a declared table (and its keys); every [`Leaf`] that is not a
/// table says `None`.
pub trait SubTable {
    /// The keys of the table, if the type is one.
    const TABLE: Option<fn() -> &'static [KeyDoc]> = None;
}

impl Ctx {
    /// Read `v` at `key` as the declared table `T` and check it with `check`.
    pub fn with<T: Leaf<Out = T>, R>(
        &mut self,
        v: &Value,
        key: &str,
        check: impl FnOnce(&mut Ctx, &T) -> Option<R>,
    ) -> Option<R> {
        let t = T::read(self, v, key)?;
        check(self, &t)
    }
}

/// How a checked value goes into a parameter field: as it is, narrowed (an integer whose
/// range its key's type bounds), or applied onto it (a declared table: a layer).
pub trait Store<T> {
    /// Store `self` into `to`.
    fn store(self, ctx: &mut Ctx, to: &mut T);
}

impl<T> Store<T> for T {
    fn store(self, _: &mut Ctx, to: &mut T) {
        *to = self;
    }
}

macro_rules! narrow {
    ($($t:ty),*) => {$(
        impl Store<$t> for i64 {
            fn store(self, _: &mut Ctx, to: &mut $t) {
                *to = self as $t;
            }
        }
    )*};
}
narrow!(i8, u8, u16, u32, u64, usize);

impl Store<Option<u8>> for u8 {
    fn store(self, _: &mut Ctx, to: &mut Option<u8>) {
        *to = Some(self);
    }
}

impl Store<u64> for crate::units::Bytes {
    fn store(self, _: &mut Ctx, to: &mut u64) {
        *to = self.get();
    }
}

impl<T> V<T> {
    /// The value `raw` of key `name` in the table at `prefix` (for keys read outside a
    /// declared table, such as the `kind` that selects one).
    pub fn of(raw: Option<&Value>, prefix: &str, name: &'static str) -> V<T> {
        let mut v = V {
            raw: raw.cloned(),
            ..V::default()
        };
        v.set_key(prefix, name);
        v
    }
}
