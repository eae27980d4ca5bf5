//! The protobuf codec of every generated service and client (`build.rs`):
//! tonic's own (`tonic_prost::ProstCodec`), except that a request message
//! whose bytes do not decode is refused as the caller's error,
//! `INVALID_ARGUMENT` with code `invalid_request` in the error model
//! ([`crate::errors::to_status`]), where tonic answers `INTERNAL`.
//!
//! A client shares the codec: the answer it decodes is a response message,
//! and an answer that does not decode stays tonic's `INTERNAL` (the server,
//! not the caller, sent it). Which of the two a message is follows from its
//! name: the protos pass buf's STANDARD lint, so every request message is
//! `<Method>Request`, every response `<Method>Response`, and no message is
//! both.

use std::marker::PhantomData;

use tonic::Status;
use tonic::codec::{BufferSettings, DecodeBuf, Decoder};
use tonic_prost::{ProstDecoder, ProstEncoder};

use crate::errors::{ErrorCode, to_status};

/// The codec of the generated code: encodes `T`, decodes `U`.
#[derive(Debug, Clone)]
pub struct ProstCodec<T, U> {
    _messages: PhantomData<(T, U)>,
}

impl<T, U> Default for ProstCodec<T, U> {
    fn default() -> Self {
        ProstCodec { _messages: PhantomData }
    }
}

impl<T, U> tonic::codec::Codec for ProstCodec<T, U>
where
    T: prost::Message + Send + 'static,
    U: prost::Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProstEncoder<T>;
    type Decoder = MessageDecoder<U>;

    fn encoder(&mut self) -> ProstEncoder<T> {
        ProstEncoder::default()
    }

    fn decoder(&mut self) -> MessageDecoder<U> {
        MessageDecoder {
            inner: ProstDecoder::default(),
        }
    }
}

/// Decodes `U` as tonic does; a request message that does not decode is
/// `invalid_request`.
#[derive(Debug, Clone)]
pub struct MessageDecoder<U> {
    inner: ProstDecoder<U>,
}

impl<U: prost::Message + Default> Decoder for MessageDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        self.inner.decode(buf).map_err(|status| {
            if is_request::<U>() {
                undecodable(&status)
            } else {
                status
            }
        })
    }

    fn buffer_settings(&self) -> BufferSettings {
        self.inner.buffer_settings()
    }
}

/// Whether `U` is a request message (`…Request`), one a server decodes.
fn is_request<U>() -> bool {
    std::any::type_name::<U>().ends_with("Request")
}

/// The refusal of a request message that does not decode; `status` is
/// tonic's, whose message says why (`failed to decode Protobuf message:
/// GetJobRequest.job_id: buffer underflow`).
fn undecodable(status: &Status) -> Status {
    to_status(
        ErrorCode::InvalidRequest,
        &format!("The request message cannot be decoded ({}).", status.message()),
        None,
    )
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use prost_types::FileDescriptorSet;

    use super::*;
    use crate::app::v1::{GetJobRequest, GetJobResponse};

    #[test]
    fn an_undecodable_request_is_invalid_request_in_the_error_model() {
        let error = GetJobRequest::decode(&[0x0a, 0x7f, 0x41][..]).expect_err("undecodable");
        let refused = undecodable(&Status::internal(error.to_string()));
        assert_eq!(refused.code(), tonic::Code::InvalidArgument);
        assert_eq!(crate::errors::from_status(&refused), (ErrorCode::InvalidRequest, None));
        assert!(refused.message().contains("buffer underflow"), "{}", refused.message());
    }

    /// The rule [`is_request`] reads holds for every method of every proto.
    #[test]
    fn every_method_takes_a_request_and_answers_a_response() {
        assert!(is_request::<GetJobRequest>());
        assert!(!is_request::<GetJobResponse>());
        let descriptors = FileDescriptorSet::decode(crate::FILE_DESCRIPTOR_SET).expect("descriptors");
        let methods = descriptors
            .file
            .iter()
            .flat_map(|file| &file.service)
            .flat_map(|service| &service.method);
        let mut count = 0;
        for method in methods {
            let (input, output) = (method.input_type(), method.output_type());
            assert!(input.ends_with("Request"), "{}: {input}", method.name());
            assert!(!output.ends_with("Request"), "{}: {output}", method.name());
            count += 1;
        }
        assert!(count > 50, "{count} methods");
    }
}
