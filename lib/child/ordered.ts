/**
 * The activities of the ordered workload (`--workload cud`): activity
 * `index` is step `index % 3` of note `floor(index / 3)`, a `Create`, then
 * an `Update` of the same note, then its `Delete` (a `Tombstone`), as a
 * user who posts, edits and deletes.  Ids follow the inbox's scheme
 * (`activityId`), so the inbox knows each arrival's note and step.
 *
 * @module
 */
import {
  type Activity,
  Create,
  Delete,
  Note,
  PUBLIC_COLLECTION,
  Tombstone,
  Update,
} from "@fedify/vocab";
import { activityId } from "../../fake_inbox/ledger.ts";
import { objectStep } from "../../fake_inbox/arrival_order.ts";
import { CUD_STEPS } from "../params/mod.ts";
import type { Audience } from "./federation.ts";

/** The id of note `object` of a run, which is also its ordering key. */
export function noteId(
  senderOrigin: string,
  runId: string,
  object: number,
): URL {
  return new URL(`/notes/${runId}/${object}`, senderOrigin);
}

/** Builds activity `index` of the `cud` workload. */
export function makeStepActivity(
  senderOrigin: string,
  actor: URL,
  runId: string,
  index: number,
  audience: Audience,
): Activity {
  const { object, step } = objectStep(index, CUD_STEPS.length);
  const id = activityId(senderOrigin, runId, index);
  const noteUrl = noteId(senderOrigin, runId, object);
  const to = [PUBLIC_COLLECTION];
  const note = (content: string, edited: boolean) =>
    new Note({
      id: noteUrl,
      attribution: actor,
      tos: to,
      content,
      published: Temporal.Now.instant(),
      ...(edited ? { updated: Temporal.Now.instant() } : {}),
    });
  const text = `Benchmark note ${object} of run ${runId} to ` +
    `${audience.recipients} recipients`;
  switch (CUD_STEPS[step]) {
    case "Create":
      return new Create({
        id,
        actor,
        tos: to,
        object: note(`${text}.`, false),
      });
    case "Update":
      return new Update({
        id,
        actor,
        tos: to,
        object: note(`${text}, edited.`, true),
      });
    case "Delete":
      return new Delete({
        id,
        actor,
        tos: to,
        object: new Tombstone({ id: noteUrl }),
      });
  }
}
