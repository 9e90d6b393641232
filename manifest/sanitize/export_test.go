package sanitize

// Exported for the external tests of this package.
var (
	InstructionSentence = instructionSentence
	Sentences           = sentences
	HasToolCall         = hasToolCall
)
