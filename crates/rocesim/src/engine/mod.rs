//! The discrete-event engine: integer-picosecond time, an event queue ordered by
//! (time, event key), a packet arena with `u32` handles, handle indexing without bounds
//! checks, and seeded random streams.

pub mod arena;
pub mod barrier;
pub mod chunk_file;
pub mod ctx;
pub mod event;
pub mod flow_window;
pub(crate) mod handle;
pub mod prefetch;
pub mod queue;
pub mod remote;
pub mod rng;

pub use arena::PacketArena;
pub use chunk_file::ChunkFile;
pub use ctx::Ctx;
pub use event::Event;
pub use flow_window::FlowWindow;
pub use queue::EventQueue;
pub use remote::Remote;
