// Package format holds every file format of ctxlab, both ways: the lossless JSON export
// of a chat (Export: Encode, ReadExport, CheckExport, ImportChat, with errors placed in
// the file), the readable Markdown transcript of a branch (WriteMarkdown), and the OpenAI
// messages array (ToOpenAI, WriteOpenAI, DecodeOpenAI, FromOpenAI).
//
// WriteChat writes a saved chat in one of the export formats (JSON, Markdown, OpenAI).
// ReadImportFile tells a ctxlab export from an OpenAI array and checks all of it before
// anything is stored, every problem a *diag.Error at its line and column, and
// ImportFile.Save stores it; Import does both in one call.
//
// It reads and writes a store only through the small interfaces Source and Importer
// (*store.DB satisfies both), on the plain values of package chat, so the store stays
// data access only. It imports the leaves (chat, jsonpos, diag) and the decision record.
package format
