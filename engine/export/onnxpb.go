package export

import (
	"encoding/binary"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// A hand-written encoder of the few ONNX messages an exported model needs
// (onnx/onnx.proto, proto2). Field numbers are ONNX's; each message is
// built as bytes and nested as a length-delimited field.

// Field numbers, onnx.proto.
const (
	modelIRVersion     = 1
	modelProducerName  = 2
	modelProducerVer   = 3
	modelDocString     = 6
	modelGraph         = 7
	modelOpsetImport   = 8
	modelMetadataProps = 14

	opsetDomain  = 1
	opsetVersion = 2

	entryKey   = 1
	entryValue = 2

	graphNode        = 1
	graphName        = 2
	graphInitializer = 5
	graphInput       = 11
	graphOutput      = 12

	nodeInput     = 1
	nodeOutput    = 2
	nodeName      = 3
	nodeOpType    = 4
	nodeAttribute = 5

	attrName = 1
	attrI    = 3
	attrInts = 8
	attrType = 20

	tensorDims     = 1
	tensorDataType = 2
	tensorName     = 8
	tensorRawData  = 9

	valueInfoName = 1
	valueInfoType = 2

	typeTensorType  = 1
	tensorElemType  = 1
	tensorTypeShape = 2
	shapeDim        = 1
	dimValue        = 1
	dimParam        = 2
)

// Enum values, onnx.proto.
const (
	attrTypeInt  = 2
	attrTypeInts = 7

	dataFloat = 1 // TensorProto.FLOAT
	dataInt64 = 7 // TensorProto.INT64
)

// pb is a message under construction.
type pb []byte

func (m pb) str(num protowire.Number, s string) pb {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendString(m, s)
}

func (m pb) bytes(num protowire.Number, b []byte) pb {
	m = protowire.AppendTag(m, num, protowire.BytesType)
	return protowire.AppendBytes(m, b)
}

func (m pb) msg(num protowire.Number, sub pb) pb { return m.bytes(num, sub) }

func (m pb) int(num protowire.Number, v int64) pb {
	m = protowire.AppendTag(m, num, protowire.VarintType)
	return protowire.AppendVarint(m, uint64(v))
}

// attrInt and attrIntList are NodeProto attributes.
func attrInt(name string, v int64) pb {
	return pb(nil).str(attrName, name).int(attrI, v).int(attrType, attrTypeInt)
}

func attrIntList(name string, vs ...int64) pb {
	m := pb(nil).str(attrName, name)
	for _, v := range vs { // unpacked, as proto2 writes repeated int64
		m = m.int(attrInts, v)
	}
	return m.int(attrType, attrTypeInts)
}

// node is a NodeProto.
func node(name, op string, inputs []string, output string, attrs ...pb) pb {
	m := pb(nil)
	for _, in := range inputs {
		m = m.str(nodeInput, in)
	}
	m = m.str(nodeOutput, output).str(nodeName, name).str(nodeOpType, op)
	for _, a := range attrs {
		m = m.msg(nodeAttribute, a)
	}
	return m
}

// floatTensor is a TensorProto of float32 values in raw_data.
func floatTensor(name string, shape []int, vals []float32) pb {
	m := pb(nil)
	for _, d := range shape {
		m = m.int(tensorDims, int64(d))
	}
	raw := make([]byte, 0, 4*len(vals))
	for _, v := range vals {
		raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(v))
	}
	return m.int(tensorDataType, dataFloat).str(tensorName, name).bytes(tensorRawData, raw)
}

// int64Tensor is a 1-D TensorProto of int64 values in raw_data.
func int64Tensor(name string, vals ...int64) pb {
	raw := make([]byte, 0, 8*len(vals))
	for _, v := range vals {
		raw = binary.LittleEndian.AppendUint64(raw, uint64(v))
	}
	return pb(nil).int(tensorDims, int64(len(vals))).int(tensorDataType, dataInt64).str(tensorName, name).bytes(tensorRawData, raw)
}

// floatValueInfo is a ValueInfoProto of a float tensor; a dimension
// given as -1 is the symbolic batch dimension "N".
func floatValueInfo(name string, dims ...int) pb {
	shape := pb(nil)
	for _, d := range dims {
		dim := pb(nil)
		if d < 0 {
			dim = dim.str(dimParam, "N")
		} else {
			dim = dim.int(dimValue, int64(d))
		}
		shape = shape.msg(shapeDim, dim)
	}
	tt := pb(nil).int(tensorElemType, dataFloat).msg(tensorTypeShape, shape)
	return pb(nil).str(valueInfoName, name).msg(valueInfoType, pb(nil).msg(typeTensorType, tt))
}
