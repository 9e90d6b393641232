// Package vecfile is the file format of the router's word vectors: a
// vocabulary, one quantised unit vector per word, and each word's nearest
// neighbours, computed once by the generator so that nothing quadratic in
// the vocabulary runs at start-up.
//
// Layout (little endian):
//
//	"ISVEC1\n"
//	uint32 words, uint16 dims, uint16 neighbours per word
//	words × (uint8 length, bytes)        sorted, unique
//	words × dims int8                    unit vectors × 127, rounded
//	words × neighbours × (uint32 word, uint8 similarity × 255)
//	                                     best first; similarity 0 ends a list
package vecfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
)

const magic = "ISVEC1\n"

// Neighbour is one entry of a word's neighbour list.
type Neighbour struct {
	Word uint32  // index into Vectors.Words
	Sim  float32 // cosine similarity, in (0, 1]
}

// Vectors is a decoded file.
type Vectors struct {
	Words      []string  // sorted
	Dims       int       // vector length
	Vec        []float32 // len(Words) × Dims, each row a unit vector
	Neighbours [][]Neighbour
}

// Index returns the position of w in Words.
func (v *Vectors) Index(w string) (int, bool) {
	return slices.BinarySearch(v.Words, w)
}

// Row returns word i's vector.
func (v *Vectors) Row(i int) []float32 { return v.Vec[i*v.Dims : (i+1)*v.Dims] }

// Write encodes v. Words must be sorted and unique, rows unit vectors.
func Write(w io.Writer, v *Vectors, k int) error {
	if !slices.IsSorted(v.Words) {
		return errors.New("vecfile: words are not sorted")
	}
	if len(v.Vec) != len(v.Words)*v.Dims || v.Dims > math.MaxUint16 || k > math.MaxUint16 {
		return errors.New("vecfile: bad sizes")
	}
	bw := bufio.NewWriter(w)
	bw.WriteString(magic)
	binary.Write(bw, binary.LittleEndian, uint32(len(v.Words)))
	binary.Write(bw, binary.LittleEndian, uint16(v.Dims))
	binary.Write(bw, binary.LittleEndian, uint16(k))
	for _, s := range v.Words {
		if len(s) == 0 || len(s) > 255 {
			return fmt.Errorf("vecfile: word %q: length must be 1..255", s)
		}
		bw.WriteByte(byte(len(s)))
		bw.WriteString(s)
	}
	for _, x := range v.Vec {
		bw.WriteByte(byte(int8(math.Round(float64(max(-1, min(1, x)) * 127)))))
	}
	for i := range v.Words {
		var list []Neighbour
		if i < len(v.Neighbours) {
			list = v.Neighbours[i]
		}
		for j := range k {
			var n Neighbour
			if j < len(list) {
				n = list[j]
			}
			binary.Write(bw, binary.LittleEndian, n.Word)
			bw.WriteByte(byte(math.Round(float64(max(0, min(1, n.Sim)) * 255))))
		}
	}
	return bw.Flush()
}

// Read decodes a file. Vectors are re-normalised after dequantisation.
func Read(data []byte) (*Vectors, error) {
	if !bytes.HasPrefix(data, []byte(magic)) {
		return nil, errors.New("vecfile: not a vectors file")
	}
	p := data[len(magic):]
	if len(p) < 8 {
		return nil, errors.New("vecfile: truncated header")
	}
	n := int(binary.LittleEndian.Uint32(p))
	dims := int(binary.LittleEndian.Uint16(p[4:]))
	k := int(binary.LittleEndian.Uint16(p[6:]))
	p = p[8:]
	v := &Vectors{Words: make([]string, n), Dims: dims}
	for i := range n {
		if len(p) < 1 || len(p) < 1+int(p[0]) {
			return nil, errors.New("vecfile: truncated vocabulary")
		}
		l := int(p[0])
		v.Words[i] = string(p[1 : 1+l])
		p = p[1+l:]
	}
	if len(p) < n*dims+n*k*5 {
		return nil, errors.New("vecfile: truncated vectors")
	}
	v.Vec = make([]float32, n*dims)
	for i := range n {
		row := v.Vec[i*dims : (i+1)*dims]
		var norm float64
		for j := range row {
			x := float32(int8(p[i*dims+j]))
			row[j] = x
			norm += float64(x * x)
		}
		if norm > 0 {
			inv := float32(1 / math.Sqrt(norm))
			for j := range row {
				row[j] *= inv
			}
		}
	}
	p = p[n*dims:]
	v.Neighbours = make([][]Neighbour, n)
	flat := make([]Neighbour, 0, n*k)
	for i := range n {
		start := len(flat)
		for j := range k {
			e := p[(i*k+j)*5:]
			w, s := binary.LittleEndian.Uint32(e), e[4]
			if s == 0 || int(w) >= n {
				continue
			}
			flat = append(flat, Neighbour{Word: w, Sim: float32(s) / 255})
		}
		v.Neighbours[i] = flat[start:len(flat):len(flat)]
	}
	return v, nil
}
