//! Freeing what a run no longer needs off its critical path.

/// Free `value` on a thread of its own: freeing a run's large structures piece by piece is
/// serial work nothing waits for. When no thread can be started, `value` is freed here.
pub(super) fn drop_aside<T: Send + 'static>(value: T) {
    let _ = std::thread::Builder::new().spawn(move || drop(value));
}
