// Package format holds every file format of ctxlab, both ways: the lossless JSON export
// of a chat (Export: Encode, ReadExport, CheckExport, ImportChat, with errors placed in
// the file), the readable Markdown transcript of a branch (Markdown), and the OpenAI
// messages array (OpenAI, WriteOpenAI, DecodeOpenAI, FromOpenAI). WriteChat writes a saved
// chat in one of the export formats; ReadImportFile tells a ctxlab export from an OpenAI
// array and checks all of it before anything is stored, and ImportFile.Save stores it.
//
// It reads and writes a store only through the small interfaces Source and Importer
// (*store.DB satisfies both), on the plain values of package chat, so the store stays
// data access only. It imports the leaves (chat, jsonpos, diag) and the decision record.
package format
