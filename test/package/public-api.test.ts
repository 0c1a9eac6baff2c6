// A public export never disappears silently. api/exports.json is the committed snapshot of every entry's export names
// (values and types); a name it holds that src/ no longer exports must be named in CHANGELOG.md (as `name`). Adding
// exports only needs the snapshot written anew: `npm run api:update` (it refuses a removal CHANGELOG.md does not name).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { added, CHANGELOG, currentExports, readSnapshot, unannouncedRemovals, type ExportLists } from '../../scripts/api-exports.js';

const now = currentExports();
const snapshot = readSnapshot();
const changelog = readFileSync(CHANGELOG, 'utf8');

describe('the public exports', () => {
  it('none of the snapshot disappeared without a CHANGELOG.md entry', () => {
    expect(unannouncedRemovals(snapshot, now, changelog)).toEqual([]);
  });

  it('the snapshot holds every export (after adding one, run npm run api:update)', () => {
    expect(added(snapshot, now)).toEqual([]);
  });

  it('an export removed without an entry is caught, and passes once the changelog names it', () => {
    const name = now.authchart!.find((n) => !changelog.includes(`\`${n}\``))!;
    const without: ExportLists = { ...now, authchart: now.authchart!.filter((n) => n !== name) };
    expect(unannouncedRemovals(snapshot, without, changelog)).toEqual([{ entry: 'authchart', name }]);
    expect(unannouncedRemovals(snapshot, without, `${changelog}\n- \`${name}\` is gone.\n`)).toEqual([]);
  });

  it('the changelog names each export 0.2.0 took out of the root entry', () => {
    for (const name of ['AWAITING', 'defineFlow', 'encode', 'decode', 'getToken']) expect(changelog).toContain(`\`${name}\``);
  });
});
