import assert from "node:assert/strict";
import { Create, Delete, Note, Tombstone, Update } from "@fedify/vocab";
import { makeStepActivity, noteId } from "./ordered.ts";

Deno.test("the cud workload: Create, Update, Delete of one note, then the next note", async () => {
  const actor = new URL("http://s.test/users/sender");
  const audience = { inboxOrigin: "http://i.test", recipients: 2 };
  const made = Array.from(
    { length: 6 },
    (_, i) => makeStepActivity("http://s.test", actor, "r1", i, audience),
  );
  const kinds = [Create, Update, Delete, Create, Update, Delete];
  for (const [i, activity] of made.entries()) {
    assert.ok(activity instanceof kinds[i], `activity ${i}`);
    assert.equal(activity.id?.href, `http://s.test/activities/r1/${i}`);
    const object = await activity.getObject();
    assert.equal(
      object?.id?.href,
      noteId("http://s.test", "r1", i < 3 ? 0 : 1).href,
    );
    assert.ok(object instanceof (i % 3 === 2 ? Tombstone : Note));
  }
});
