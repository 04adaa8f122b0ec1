//! The `mbarrier` object (§9.7.13.15): an opaque 64-bit word in shared memory holding the
//! current phase's parity, the pending arrival count, the expected arrival count and the
//! transaction count. The layout is ptxvm's own (the ISA leaves it opaque):
//!
//! | bits | field |
//! |---|---|
//! | 0..21 | pending arrivals of the current phase |
//! | 21..42 | expected arrivals (the count every new phase starts with; 0 = not initialised) |
//! | 42..63 | tx-count, 21-bit two's complement |
//! | 63 | phase parity |
//!
//! The current phase completes when its pending count and tx-count are both zero: the
//! parity flips, pending restarts at the expected count. Arrive returns a state word whose
//! top bit is the parity of the phase the arrival belonged to and whose low bits are the
//! pending count after it; `test_wait`/`try_wait` compare parities. Every undefined use
//! (arrive on an uninitialised object, more arrivals than pending, a `.noComplete` arrival
//! that would complete the phase, tx-count out of range) is an error, so kernels get a
//! diagnostic rather than a silent hang.

const FIELD: u64 = (1 << 21) - 1;
/// Largest arrival count and |tx-count| (2^20 − 1).
pub const MAX_COUNT: u64 = (1 << 20) - 1;

/// The decoded fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MBar {
    pub pending: u64,
    pub expected: u64,
    pub tx: i64,
    pub phase: bool,
}

impl MBar {
    pub fn decode(w: u64) -> MBar {
        let tx = ((w >> 42) & FIELD) as i64;
        MBar {
            pending: w & FIELD,
            expected: (w >> 21) & FIELD,
            tx: if tx >= 1 << 20 { tx - (1 << 21) } else { tx },
            phase: w >> 63 != 0,
        }
    }

    pub fn encode(&self) -> u64 {
        (self.pending & FIELD)
            | (self.expected & FIELD) << 21
            | ((self.tx as u64) & FIELD) << 42
            | (self.phase as u64) << 63
    }

    /// `mbarrier.init`: phase 0, `count` pending and expected.
    pub fn init(count: u64) -> Result<u64, String> {
        if count == 0 || count > MAX_COUNT {
            return Err(format!(
                "mbarrier.init count {count} is outside 1..{MAX_COUNT}"
            ));
        }
        Ok(MBar {
            pending: count,
            expected: count,
            tx: 0,
            phase: false,
        }
        .encode())
    }

    fn initialised(&self) -> Result<(), String> {
        if self.expected == 0 {
            return Err(
                "mbarrier object is not initialised (mbarrier.init) or was invalidated".into(),
            );
        }
        Ok(())
    }

    /// Completes the phase when nothing is pending.
    fn settle(&mut self) {
        if self.pending == 0 && self.tx == 0 {
            self.phase = !self.phase;
            self.pending = self.expected;
        }
    }

    /// Adds `delta` to the tx-count (`expect_tx` adds, `complete_tx` subtracts), then
    /// completes the phase if it can.
    pub fn tx(w: u64, delta: i64) -> Result<u64, String> {
        let mut m = MBar::decode(w);
        m.initialised()?;
        let tx = m.tx + delta;
        if tx.unsigned_abs() > MAX_COUNT {
            return Err(format!(
                "mbarrier tx-count {tx} is outside ±{MAX_COUNT} (expect_tx/complete_tx)"
            ));
        }
        m.tx = tx;
        m.settle();
        Ok(m.encode())
    }

    /// An arrive-on operation of `count` arrivals; `drop` also lowers the expected count
    /// of later phases, `no_complete` forbids completing the phase. Returns the new word
    /// and the state token.
    pub fn arrive(w: u64, count: u64, drop: bool, no_complete: bool) -> Result<(u64, u64), String> {
        let mut m = MBar::decode(w);
        m.initialised()?;
        if count == 0 || count > m.pending {
            return Err(format!(
                "mbarrier arrive with count {count}, but the current phase has {} pending arrivals",
                m.pending
            ));
        }
        if drop {
            if count > m.expected {
                return Err(format!(
                    "mbarrier.arrive_drop of {count} exceeds the expected count {}",
                    m.expected
                ));
            }
            m.expected -= count;
        }
        m.pending -= count;
        let state = (m.phase as u64) << 63 | m.pending;
        if no_complete && m.pending == 0 && m.tx == 0 {
            return Err(
                "mbarrier .noComplete arrival would complete the current phase (undefined behaviour)"
                    .into(),
            );
        }
        m.settle();
        Ok((m.encode(), state))
    }

    /// `test_wait`/`try_wait` with a state token: has that phase completed?
    pub fn phase_done(w: u64, state: u64) -> bool {
        MBar::decode(w).phase != (state >> 63 != 0)
    }

    /// `.parity` waits: has the phase with this parity completed?
    pub fn parity_done(w: u64, parity: u64) -> bool {
        MBar::decode(w).phase != (parity & 1 != 0)
    }

    /// `mbarrier.pending_count` from a state token.
    pub fn pending_of(state: u64) -> u64 {
        state & FIELD
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_flip_when_all_arrive() {
        let w = MBar::init(3).unwrap();
        let (w, s1) = MBar::arrive(w, 1, false, false).unwrap();
        assert!(!MBar::phase_done(w, s1));
        assert_eq!(MBar::pending_of(s1), 2);
        let (w, _) = MBar::arrive(w, 2, false, false).unwrap();
        assert!(MBar::phase_done(w, s1), "phase 0 completed");
        assert!(MBar::parity_done(w, 0) && !MBar::parity_done(w, 1));
        assert_eq!(MBar::decode(w).pending, 3);
        // Too many arrivals.
        assert!(MBar::arrive(w, 4, false, false).is_err());
    }

    #[test]
    fn tx_count_holds_the_phase() {
        let w = MBar::init(1).unwrap();
        let w = MBar::tx(w, 256).unwrap();
        let (w, s) = MBar::arrive(w, 1, false, false).unwrap();
        assert!(!MBar::phase_done(w, s), "bytes still expected");
        let w = MBar::tx(w, -200).unwrap();
        assert!(!MBar::phase_done(w, s));
        let w = MBar::tx(w, -56).unwrap();
        assert!(MBar::phase_done(w, s));
        assert!(MBar::tx(w, 1 << 21).is_err());
    }

    #[test]
    fn drop_and_no_complete() {
        let w = MBar::init(2).unwrap();
        let (w, _) = MBar::arrive(w, 1, true, false).unwrap();
        let (w, s) = MBar::arrive(w, 1, false, false).unwrap();
        assert!(MBar::phase_done(w, s));
        assert_eq!(MBar::decode(w).pending, 1, "next phase expects one arrival");
        assert!(MBar::arrive(w, 1, false, true).is_err());
        assert!(MBar::arrive(0, 1, false, false).is_err(), "uninitialised");
        assert!(MBar::init(0).is_err() && MBar::init(1 << 20).is_err());
    }
}
