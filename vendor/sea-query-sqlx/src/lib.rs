#![forbid(unsafe_code)]

//! Driver library for using SeaQuery with SQLx
//!
//! This library introduces various traits that add methods to the query types from `sea-query`.
//! For instance, using the [`SqlxBinder`] trait adds a [`SqlxBinder::build_sqlx`] method that
//! returns the query and a [`SqlxValues`] object, which can be directly passed to `sqlx`'s
//! [`sqlx::query_with`][1] method.
//!
//! [1]: ../sqlx/fn.query_with.html

#[cfg(all(
    any(
        feature = "sqlx-mysql",
        feature = "sqlx-postgres",
        feature = "sqlx-any"
    ),
    feature = "with-jiff",
    not(feature = "unimplemented-jiff-sqlx")
))]
const _: () = panic!(
    "sea-query-sqlx does not support with-jiff together with sqlx-mysql/sqlx-postgres/sqlx-any yet; \
enable the `unimplemented-jiff-sqlx` feature to acknowledge the limitation and keep the \
current runtime panic behavior"
);

#[cfg(feature = "sqlx-any")]
mod sqlx_any;
#[cfg(feature = "sqlx-mysql")]
mod sqlx_mysql;
#[cfg(feature = "sqlx-postgres")]
mod sqlx_postgres;
#[cfg(feature = "sqlx-sqlite")]
mod sqlx_sqlite;

mod values;
pub use crate::values::SqlxValues;

#[cfg(any(
    feature = "sqlx-mysql",
    feature = "sqlx-postgres",
    feature = "sqlx-sqlite",
    feature = "sqlx-any"
))]
mod sqlx;
#[cfg(any(
    feature = "sqlx-mysql",
    feature = "sqlx-postgres",
    feature = "sqlx-sqlite",
    feature = "sqlx-any"
))]
pub use crate::sqlx::SqlxBinder;
