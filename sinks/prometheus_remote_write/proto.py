"""Prometheus remote write 1.0's messages, built at run time from their descriptor (protobuf alone, no protoc).

The field numbers are those of prompb (prometheus/prompb/remote.proto and types.proto): a WriteRequest of
TimeSeries (1), each of Labels (1) and Samples (2); a Label is name (1) and value (2), a Sample value
(1, double) and timestamp (2, int64 milliseconds). Only what this sink sends is declared: metadata,
exemplars and histograms are fields a receiver may do without.
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_F = descriptor_pb2.FieldDescriptorProto
_PACKAGE = "fabricwatch.prompb"


def _file() -> descriptor_pb2.FileDescriptorProto:
    f = descriptor_pb2.FileDescriptorProto(name="fabricwatch/prompb/remote.proto", package=_PACKAGE, syntax="proto3")

    def message(name: str, *fields: tuple[str, int, int, str]) -> None:
        m = f.message_type.add(name=name)
        for field_name, number, kind, type_name in fields:
            repeated = kind == _F.TYPE_MESSAGE
            m.field.add(name=field_name, number=number, type=kind,
                        label=_F.LABEL_REPEATED if repeated else _F.LABEL_OPTIONAL,
                        type_name=f".{_PACKAGE}.{type_name}" if type_name else None)

    message("Label", ("name", 1, _F.TYPE_STRING, ""), ("value", 2, _F.TYPE_STRING, ""))
    message("Sample", ("value", 1, _F.TYPE_DOUBLE, ""), ("timestamp", 2, _F.TYPE_INT64, ""))
    message("TimeSeries", ("labels", 1, _F.TYPE_MESSAGE, "Label"), ("samples", 2, _F.TYPE_MESSAGE, "Sample"))
    message("WriteRequest", ("timeseries", 1, _F.TYPE_MESSAGE, "TimeSeries"))
    return f


_pool = descriptor_pool.DescriptorPool()  # our own pool: another module's prometheus.* messages never clash
_pool.Add(_file())


def message_class(name: str) -> Any:
    """The generated class of one of the messages above (WriteRequest, TimeSeries, Label, Sample)."""
    return message_factory.GetMessageClass(_pool.FindMessageTypeByName(f"{_PACKAGE}.{name}"))


WriteRequest = message_class("WriteRequest")
TimeSeries = message_class("TimeSeries")
