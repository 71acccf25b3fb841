//! napi-rs's link settings for a Node addon.
fn main() {
    napi_build::setup();
}
