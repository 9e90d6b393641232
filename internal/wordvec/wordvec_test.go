package wordvec

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"

	"github.com/intentsrv/intentsrv/internal/vecfile"
)

// corpus makes documents about two topics that share no words: words of
// one topic co-occur, so they must end up each other's neighbours.
func corpus() Corpus {
	topics := [][]string{
		{"invoice", "payment", "refund", "charge", "billing", "amount", "currency", "card", "receipt", "tax"},
		{"repository", "branch", "commit", "merge", "pull", "fork", "tag", "release", "diff", "blame"},
	}
	rng := rand.New(rand.NewPCG(7, 7))
	var c Corpus
	for d := range 40 {
		var doc [][]string
		t := topics[d%2]
		for range 60 {
			s := make([]string, 8)
			for i := range s {
				s[i] = t[rng.IntN(len(t))]
			}
			doc = append(doc, s)
		}
		c = append(c, doc)
	}
	return c
}

func TestNeighboursShareTheTopic(t *testing.T) {
	cfg := Config{Dims: 3, Window: 3, MinCount: 2, MinDocs: 2, MaxVocab: 100, Alpha: 0.75, PowerIters: 3, Neighbours: 4, MinSim: 0.1, Seed: 1}
	v, err := Train(corpus(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	pay := []string{"invoice", "payment", "refund", "charge", "billing", "amount", "currency", "card", "receipt", "tax"}
	for _, w := range []string{"invoice", "commit"} {
		i, ok := v.Index(w)
		if !ok {
			t.Fatalf("%s not learned", w)
		}
		if len(v.Neighbours[i]) == 0 {
			t.Fatalf("%s has no neighbours", w)
		}
		for _, n := range v.Neighbours[i] {
			if slices.Contains(pay, w) != slices.Contains(pay, v.Words[n.Word]) {
				t.Errorf("%s's neighbour %s is of the other topic", w, v.Words[n.Word])
			}
		}
	}
}

func TestTrainingIsDeterministic(t *testing.T) {
	cfg := Config{Dims: 3, Window: 3, MinCount: 2, MinDocs: 2, MaxVocab: 100, Alpha: 0.75, PowerIters: 2, Neighbours: 3, MinSim: 0.1, Seed: 3}
	enc := func() []byte {
		v, err := Train(corpus(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if err := vecfile.Write(&b, v, cfg.Neighbours); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	if !bytes.Equal(enc(), enc()) {
		t.Fatal("two trainings on the same corpus differ")
	}
	// The file quantises, which can hide a difference in the last bits;
	// the vectors themselves must be the same too (a sum in map order
	// once made them differ).
	first, err := Train(corpus(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		again, err := Train(corpus(), cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(first, again) {
			t.Fatal("two trainings on the same corpus give different vectors")
		}
	}
}

func TestTooSmallCorpusIsAnError(t *testing.T) {
	_, err := Train(Corpus{{{"a", "b"}}}, DefaultConfig)
	if err == nil {
		t.Fatal("want an error")
	}
	_ = fmt.Sprint(err)
}
