//! The event queue: a binary heap ordered by (time, sequence number), so events at the same
//! picosecond run in the order they were scheduled and runs are deterministic.

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use super::event::Event;
use crate::units::Time;

#[derive(Clone, Copy, Debug)]
struct Entry {
    time: u64,
    seq: u64,
    event: Event,
}

impl PartialEq for Entry {
    fn eq(&self, o: &Self) -> bool {
        self.time == o.time && self.seq == o.seq
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Entry {
    fn cmp(&self, o: &Self) -> Ordering {
        // Reversed: the heap's maximum is the earliest (time, seq).
        (o.time, o.seq).cmp(&(self.time, self.seq))
    }
}

/// Pending events.
#[derive(Debug, Default)]
pub struct EventQueue {
    heap: BinaryHeap<Entry>,
    seq: u64,
    now: Time,
}

impl EventQueue {
    /// An empty queue at time zero.
    pub fn new() -> Self {
        Self::default()
    }
    /// The current simulated time (the time of the last popped event).
    #[inline]
    pub fn now(&self) -> Time {
        self.now
    }
    /// Schedule `event` at absolute time `at` (never earlier than now).
    #[inline]
    pub fn schedule(&mut self, at: Time, event: Event) {
        debug_assert!(at >= self.now, "event scheduled in the past");
        self.seq += 1;
        self.heap.push(Entry {
            time: at.0,
            seq: self.seq,
            event,
        });
    }
    /// Schedule `event` after `delay`.
    #[inline]
    pub fn schedule_in(&mut self, delay: Time, event: Event) {
        self.schedule(self.now + delay, event);
    }
    /// Time of the earliest pending event.
    #[inline]
    pub fn peek_time(&self) -> Option<Time> {
        self.heap.peek().map(|e| Time(e.time))
    }
    /// Remove the earliest event and advance time to it.
    #[inline]
    pub fn pop(&mut self) -> Option<(Time, Event)> {
        let e = self.heap.pop()?;
        self.now = Time(e.time);
        Some((self.now, e.event))
    }
    /// Number of pending events.
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    /// True when nothing is pending.
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Move the clock to `t` without an event (end of run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pops_in_time_then_fifo_order() {
        let mut q = EventQueue::new();
        q.schedule(Time(5), Event::TxDone(1));
        q.schedule(Time(3), Event::TxDone(2));
        q.schedule(Time(5), Event::TxDone(3));
        q.schedule(Time(3), Event::TxDone(4));
        let order: Vec<_> = std::iter::from_fn(|| q.pop()).collect();
        assert_eq!(
            order,
            vec![
                (Time(3), Event::TxDone(2)),
                (Time(3), Event::TxDone(4)),
                (Time(5), Event::TxDone(1)),
                (Time(5), Event::TxDone(3)),
            ]
        );
        assert_eq!(q.now(), Time(5));
    }

    #[test]
    fn event_is_small() {
        assert!(std::mem::size_of::<Event>() <= 16);
    }
}
