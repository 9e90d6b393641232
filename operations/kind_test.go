package operations

import "testing"

func TestDeclaredNeverLowers(t *testing.T) {
	for _, c := range []struct {
		floor, declared, want Kind
		lowered               bool
	}{
		{KindDestructive, KindRead, KindDestructive, true},
		{KindDestructive, KindWrite, KindDestructive, true},
		{KindWrite, KindRead, KindWrite, true},
		{KindRead, KindWrite, KindWrite, false},
		{KindRead, KindDestructive, KindDestructive, false},
		{KindWrite, KindDestructive, KindDestructive, false},
		{KindWrite, KindWrite, KindWrite, false},
		{KindWrite, "", KindWrite, false},
		{KindRead, "harmless", KindRead, false},
	} {
		got, lowered := Declared(c.floor, c.declared)
		if got != c.want || lowered != c.lowered {
			t.Errorf("Declared(%s, %q) = %s, %v; want %s, %v", c.floor, c.declared, got, lowered, c.want, c.lowered)
		}
	}
}

func TestNamesRemoval(t *testing.T) {
	for text, want := range map[string]bool{
		"DeleteBucket": true, "delete_bucket": true, "deleteBucket": true, "BatchDeleteItems": true,
		"bulk-remove-members": true, "Deletes the specified Task file.": true, "PURGE": true,
		"terminatejob":  false, // one word that is not a verb alone
		"Deleted items": false, "listDeletedItems": false, "get_delete_status": false,
		"CreateBucket": false, "": false, "  ": false, "Remover": false, "removal": false,
	} {
		if got := NamesRemoval(text); got != want {
			t.Errorf("NamesRemoval(%q) = %v, want %v", text, got, want)
		}
	}
}

func TestNamesRead(t *testing.T) {
	for text, want := range map[string]bool{
		"DescribeInstances": true, "GetObject": true, "batch_get_item": true, "ListQueues": true,
		"CreateImage": false, "RunInstances": false, "ModifyVolume": false, "Getaway": false, "": false,
	} {
		if got := NamesRead(text); got != want {
			t.Errorf("NamesRead(%q) = %v, want %v", text, got, want)
		}
	}
}
