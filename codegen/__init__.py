"""protoc-gen-a2a: generate typed HTTP+JSON and JSON-RPC binding tables from protos."""

__version__ = "0.2.0"
