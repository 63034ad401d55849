import { listEvents } from './event-operations.ts';
import { queryGraphRelations } from './graph-operations.ts';
import { searchNotes } from './search-operations.ts';
import { deleteNote, listNotes, listTrash, readNote, runNoteTransaction, writeNote } from './note-operations.ts';

/** Every operation of the Developer REST API, in the order the OpenAPI document lists them. */
export const DEVELOPER_OPERATIONS = [listNotes, readNote, writeNote, deleteNote, runNoteTransaction, listTrash, searchNotes, queryGraphRelations, listEvents] as const;
