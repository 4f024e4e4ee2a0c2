-- chats_updated (updated_at DESC, id) changed with every commit, since each commit moves
-- its chat's updated_at: one more page written per turn, for an order that only listing
-- the chats needs. ListChats sorts the chats table instead (a few thousand short rows),
-- and reads the branches of only the chats it returns.
DROP INDEX chats_updated;
