package helpdesk

import (
	"context"
	"fmt"

	"github.com/intentsrv/intentsrv/operations"
)

// ListCommentsInput pages through one ticket's conversation.
type ListCommentsInput struct {
	TicketRef
	PublicOnly bool `json:"public_only,omitempty" jsonschema_description:"Leave out internal notes, showing only what the customer sees."`
	Page
}

// AddCommentInput posts a reply or an internal note.
type AddCommentInput struct {
	TicketRef
	Body     string `json:"body" jsonschema:"minLength=1,maxLength=10000" jsonschema_description:"Text of the comment."`
	Public   *bool  `json:"public,omitempty" jsonschema:"default=true" jsonschema_description:"True for a reply the customer sees; false for an internal note."`
	AuthorID int    `json:"author_id,omitempty" jsonschema:"minimum=1" jsonschema_description:"User writing the comment; defaults to the API integration user."`
}

// CommentRef names one comment.
type CommentRef struct {
	CommentID int `json:"comment_id" jsonschema:"minimum=1" jsonschema_description:"Comment id, from helpdesk.comments.list."`
}

// UpdateCommentInput corrects a comment's text.
type UpdateCommentInput struct {
	CommentRef
	Body string `json:"body" jsonschema:"minLength=1,maxLength=10000" jsonschema_description:"Replacement text."`
}

// DeleteResult reports the deletion of one record.
type DeleteResult struct {
	ID      int  `json:"id"`
	Deleted bool `json:"deleted"`
}

// AttachmentRef names one attachment.
type AttachmentRef struct {
	AttachmentID int `json:"attachment_id" jsonschema:"minimum=1" jsonschema_description:"Attachment id, from helpdesk.attachments.list."`
}

// ListAttachmentsInput pages through a ticket's files.
type ListAttachmentsInput struct {
	TicketRef
	Page
}

func (s *Service) registerComments(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.comments.list",
		Summary:     "List the replies and internal notes on a ticket, oldest first.",
		Description: "Reads a ticket's conversation. Set public_only to see only what the customer sees.",
		Tags:        []string{"comments", "tickets"},
		Examples: []operations.Example{
			{Intent: "what did the customer say on ticket 42", Params: map[string]any{"ticket_id": 42}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listComments)

	add(r, operations.Operation{
		ID:          "helpdesk.comments.add",
		Summary:     "Reply to a customer on a ticket, or add an internal note.",
		Description: "Posts a comment; public is true by default. A public reply from an agent counts as the first response for SLA and opens a new ticket; a customer reply reopens a pending one.",
		Tags:        []string{"comments", "tickets"},
		Aliases:     []string{"helpdesk.tickets.reply"},
		Examples: []operations.Example{
			{Intent: "reply to ticket 42 that the fix is deployed", Params: map[string]any{"ticket_id": 42, "body": "The fix is deployed; checkout should work again."}},
			{Intent: "leave an internal note on 19", Params: map[string]any{"ticket_id": 19, "body": "Row 12,004 has an unescaped quote.", "public": false}},
		},
		Kind: operations.KindWrite,
	}, s.addCommentOp)

	add(r, operations.Operation{
		ID:          "helpdesk.comments.update",
		Summary:     "Edit the text of a comment.",
		Description: "Replaces a comment's body and marks it edited. Use it to fix a typo or remove pasted secrets.",
		Tags:        []string{"comments"},
		Kind:        operations.KindWrite, Idempotent: true,
	}, s.updateComment)

	add(r, operations.Operation{
		ID:          "helpdesk.comments.delete",
		Summary:     "Delete a comment from a ticket.",
		Description: "Removes the comment permanently, along with files attached to it.",
		Tags:        []string{"comments"},
		Kind:        operations.KindDestructive,
	}, s.deleteComment)
}

func (s *Service) registerAttachments(r *registrar) {
	add(r, operations.Operation{
		ID:          "helpdesk.attachments.list",
		Summary:     "List the files attached to a ticket.",
		Description: "Returns file names, types, sizes and uploaders for one ticket; file contents are not stored.",
		Tags:        []string{"attachments", "files"},
		Examples: []operations.Example{
			{Intent: "did the customer send a screenshot on 42", Params: map[string]any{"ticket_id": 42}},
		},
		Kind: operations.KindRead, Idempotent: true,
	}, s.listAttachments)

	add(r, operations.Operation{
		ID:          "helpdesk.attachments.get",
		Summary:     "Get the metadata of one attachment.",
		Description: "Reads an attachment's file name, content type, size, ticket and uploader.",
		Tags:        []string{"attachments", "files"},
		Kind:        operations.KindRead, Idempotent: true,
	}, s.getAttachment)

	add(r, operations.Operation{
		ID:          "helpdesk.attachments.delete",
		Summary:     "Delete an attachment from a ticket.",
		Description: "Removes the file permanently, for example when a customer uploaded personal data by mistake.",
		Tags:        []string{"attachments", "files"},
		Kind:        operations.KindDestructive,
	}, s.deleteAttachment)
}

func (s *Service) commentView(c *Comment) Comment {
	v := *c
	v.AuthorName = s.userName(c.AuthorID)
	return v
}

func (s *Service) listComments(_ context.Context, in ListCommentsInput) (List[Comment], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.tickets[in.TicketID]; !ok {
		return List[Comment]{}, ticketNotFound(in.TicketID)
	}
	var cs []Comment
	for _, id := range sortedKeys(s.comments) {
		c := s.comments[id]
		if c.TicketID == in.TicketID && (c.Public || !in.PublicOnly) {
			cs = append(cs, s.commentView(c))
		}
	}
	return paginate(cs, in.Page)
}

func (s *Service) addCommentOp(_ context.Context, in AddCommentInput) (Comment, error) {
	public := in.Public == nil || *in.Public
	author := in.AuthorID
	if author == 0 {
		author = apiUserID
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[in.TicketID]
	if !ok {
		return Comment{}, ticketNotFound(in.TicketID)
	}
	u, ok := s.users[author]
	if !ok {
		return Comment{}, userNotFound(author)
	}
	if u.Role == RoleCustomer && !public {
		return Comment{}, invalidParams("customers cannot write internal notes",
			"set public to true, or write the note as an agent with author_id")
	}
	if t.MergedInto != 0 {
		return Comment{}, operations.Conflict(fmt.Sprintf("ticket %d was merged into ticket %d", t.ID, t.MergedInto),
			fmt.Sprintf("comment on ticket %d instead", t.MergedInto))
	}
	s.tick()
	c := s.addComment(t, author, in.Body, public)
	switch {
	case public && u.Role != RoleCustomer && t.Status == StatusNew:
		t.Status = StatusOpen
	case public && author == t.RequesterID && t.Status == StatusPending:
		t.Status = StatusOpen
	}
	kind := "internal note"
	if public {
		kind = "public reply"
	}
	s.record(author, "comment.added", "ticket", t.ID, kind)
	return s.commentView(c), nil
}

func (s *Service) updateComment(_ context.Context, in UpdateCommentInput) (Comment, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.comments[in.CommentID]
	if !ok {
		return Comment{}, commentNotFound(in.CommentID)
	}
	if c.Body != in.Body {
		s.tick()
		c.Body = in.Body
		at := s.now
		c.EditedAt = &at
		s.record(apiUserID, "comment.edited", "ticket", c.TicketID, fmt.Sprintf("comment %d", c.ID))
	}
	return s.commentView(c), nil
}

func commentNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("comment %d", id),
		"list a ticket's comments with helpdesk.comments.list")
}

func (s *Service) deleteComment(_ context.Context, in CommentRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.comments[in.CommentID]
	if !ok {
		return DeleteResult{}, commentNotFound(in.CommentID)
	}
	s.tick()
	for id, a := range s.attachments {
		if a.CommentID == c.ID {
			delete(s.attachments, id)
		}
	}
	delete(s.comments, c.ID)
	s.record(apiUserID, "comment.deleted", "ticket", c.TicketID, fmt.Sprintf("comment %d", c.ID))
	return DeleteResult{ID: c.ID, Deleted: true}, nil
}

func (s *Service) listAttachments(_ context.Context, in ListAttachmentsInput) (List[Attachment], error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if _, ok := s.tickets[in.TicketID]; !ok {
		return List[Attachment]{}, ticketNotFound(in.TicketID)
	}
	var as []Attachment
	for _, id := range sortedKeys(s.attachments) {
		if a := s.attachments[id]; a.TicketID == in.TicketID {
			as = append(as, *a)
		}
	}
	return paginate(as, in.Page)
}

func attachmentNotFound(id int) *operations.Error {
	return operations.NotFound(fmt.Sprintf("attachment %d", id),
		"list a ticket's files with helpdesk.attachments.list")
}

func (s *Service) getAttachment(_ context.Context, in AttachmentRef) (Attachment, error) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	a, ok := s.attachments[in.AttachmentID]
	if !ok {
		return Attachment{}, attachmentNotFound(in.AttachmentID)
	}
	return *a, nil
}

func (s *Service) deleteAttachment(_ context.Context, in AttachmentRef) (DeleteResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, ok := s.attachments[in.AttachmentID]
	if !ok {
		return DeleteResult{}, attachmentNotFound(in.AttachmentID)
	}
	s.tick()
	delete(s.attachments, a.ID)
	s.record(apiUserID, "attachment.deleted", "ticket", a.TicketID, a.Filename)
	return DeleteResult{ID: a.ID, Deleted: true}, nil
}
