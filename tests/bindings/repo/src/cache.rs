/// How long a cached response stays fresh.
pub const TTL_SECONDS: u64 = 30;

pub fn ttl() -> u64 {
    TTL_SECONDS
}
