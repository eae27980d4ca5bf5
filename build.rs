//! Compiles `proto/` with protox (pure Rust, no system `protoc`) into the
//! generated modules of this crate (their codec: `src/codec.rs`), and writes
//! the encoded descriptor set for gRPC reflection.

use std::path::PathBuf;

const PROTOS: &[&str] = &[
    "courier/v1/common.proto",
    "courier/v1/vehicle_types.proto",
    "courier/v1/quotes.proto",
    "courier/v1/deliveries.proto",
    "courier/v1/events.proto",
    "courier/v1/webhooks.proto",
    "courier/v1/fleet.proto",
    "courier/v1/public.proto",
    "courier/v1/notifications.proto",
    "courier/internal/v1/admin.proto",
    "courier/internal/v1/billing.proto",
    "courier/internal/v1/console.proto",
    "courier/internal/v1/dispatch.proto",
    "courier/internal/v1/couriers.proto",
    "courier/internal/v1/notifications.proto",
    "courier/internal/v1/reports.proto",
    "courier/app/v1/courier_app.proto",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // compile_fds does not announce its inputs, so do it here.
    println!("cargo:rerun-if-changed=proto");
    for proto in PROTOS {
        println!("cargo:rerun-if-changed=proto/{proto}");
    }
    let descriptors = protox::compile(PROTOS, ["proto"])?;
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);
    std::fs::write(
        out_dir.join("courier_descriptor.bin"),
        prost::Message::encode_to_vec(&descriptors),
    )?;
    // Every service and client decodes with `courier::codec::ProstCodec`:
    // tonic's, with an undecodable request refused as `invalid_request`.
    tonic_prost_build::configure()
        .codec_path("crate::codec::ProstCodec")
        // A batch result holds a delivery or a small error: the delivery boxed.
        .boxed(".courier.v1.BatchCreateDeliveryResult.result.delivery")
        .compile_fds(descriptors)?;
    Ok(())
}
