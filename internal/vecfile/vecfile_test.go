package vecfile

import (
	"bytes"
	"math"
	"testing"
)

func TestRoundTrip(t *testing.T) {
	s := float32(1 / math.Sqrt2)
	v := &Vectors{
		Words: []string{"alpha", "beta", "gamma"},
		Dims:  2,
		Vec:   []float32{1, 0, s, s, 0, 1},
		Neighbours: [][]Neighbour{
			{{Word: 1, Sim: 0.7}},
			{{Word: 0, Sim: 0.7}, {Word: 2, Sim: 0.7}},
			nil,
		},
	}
	var b bytes.Buffer
	if err := Write(&b, v, 2); err != nil {
		t.Fatal(err)
	}
	got, err := Read(b.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Words) != 3 || got.Dims != 2 || got.Words[1] != "beta" {
		t.Fatalf("decoded %+v", got)
	}
	if i, ok := got.Index("gamma"); !ok || i != 2 {
		t.Fatalf("Index(gamma) = %d, %v", i, ok)
	}
	for i, x := range got.Vec {
		if math.Abs(float64(x-v.Vec[i])) > 0.01 {
			t.Fatalf("vector %d: %v, want %v", i, got.Vec, v.Vec)
		}
	}
	if len(got.Neighbours[1]) != 2 || len(got.Neighbours[2]) != 0 || math.Abs(float64(got.Neighbours[0][0].Sim-0.7)) > 0.01 {
		t.Fatalf("neighbours %+v", got.Neighbours)
	}
}

func TestReadRefusesDamage(t *testing.T) {
	v := &Vectors{Words: []string{"a1", "b2"}, Dims: 2, Vec: []float32{1, 0, 0, 1}}
	var b bytes.Buffer
	if err := Write(&b, v, 1); err != nil {
		t.Fatal(err)
	}
	for _, data := range [][]byte{nil, []byte("nope"), b.Bytes()[:len(b.Bytes())-3]} {
		if _, err := Read(data); err == nil {
			t.Errorf("Read(%q...) accepted damaged data", data[:min(len(data), 8)])
		}
	}
	if err := Write(&b, &Vectors{Words: []string{"b", "a"}, Dims: 1, Vec: []float32{1, 1}}, 0); err == nil {
		t.Error("Write accepted unsorted words")
	}
}
