// One writer of the soak test (scripts/soak.mjs), run as its own process until killed or out
// of time. Each logs what it is about to do (`I`) and what it has done (`D`, `E`), one line
// each, appended with O_APPEND, so that the audit knows every increment and every edit.
//   node soak-worker.cjs touch    VAULT LOG SEED UNTIL IDS_JSON
//   node soak-worker.cjs remember VAULT LOG SEED UNTIL POOL_JSON   ({id: text}: repeats reinforce)
//   node soak-worker.cjs person   VAULT LOG SEED UNTIL IDS_JSON
const fs = require('node:fs');
const path = require('node:path');
const lib = require(path.resolve(__dirname, '..', 'dist', 'lib.js'));

const [kind, vault, log, seed, until, json] = process.argv.slice(2);
let state = Number(seed) >>> 0 || 1;
const rand = () => ((state = (Math.imul(state ^ (state >>> 15), 2246822507) + 0x9e3779b9) >>> 0) / 2 ** 32);
const pick = (items) => items[Math.floor(rand() * items.length)];
const out = fs.openSync(log, 'a');
const note = (line) => fs.writeSync(out, `${line}\n`);
const pause = (ms) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
const deadline = Number(until);

async function main() {
  const { vault: v } = lib.openVault({ vault, cwd: process.cwd(), env: {} });
  let seq = 0;
  if (kind === 'touch') {
    const ids = JSON.parse(json);
    while (Date.now() < deadline) {
      const id = pick(ids);
      const n = `${process.pid}.${++seq}`;
      note(`I ${n} ${id}`);
      try {
        await lib.useMemories(v, [id], { use: 'read', touch: true, coAccess: false });
        note(`D ${n} ${id}`);
      } catch (error) {
        note(`F ${n} ${id} ${String(error.message).replace(/\n/g, ' ').slice(0, 200)}`);
      }
    }
  } else if (kind === 'remember') {
    const pool = Object.entries(JSON.parse(json));
    while (Date.now() < deadline) {
      const n = `${process.pid}.${++seq}`;
      if (rand() < 0.5) {
        const [id, text] = pick(pool);
        note(`I ${n} ${id}`);
        try {
          const result = await lib.remember(v, { text });
          note(result.action === 'reinforced' && result.id === id ? `D ${n} ${id}` : `X ${n} ${id} ${result.action} ${result.id}`);
        } catch (error) {
          note(`F ${n} ${id} ${String(error.message).replace(/\n/g, ' ').slice(0, 200)}`);
        }
      } else {
        try {
          const result = await lib.remember(v, { text: `A new observation ${n} about ${Math.floor(rand() * 1e9).toString(36)} zq${seq}` });
          note(`N ${n} ${result.action} ${result.id}`);
        } catch (error) {
          note(`F ${n} new ${String(error.message).replace(/\n/g, ' ').slice(0, 200)}`);
        }
      }
    }
  } else if (kind === 'person') {
    // a person editing notes in place, as an editor that saves its buffer: it reads the note,
    // types for a moment, checks the file did not change on disk meanwhile (else reloads and
    // types again), then truncates and writes, sometimes in two pieces
    const ids = JSON.parse(json);
    while (Date.now() < deadline) {
      const id = pick(ids);
      const file = ['episodic', 'semantic', 'decisions', 'archive'].map((f) => path.join(vault, f, `${id}.md`)).find((f) => fs.existsSync(f));
      if (!file) continue;
      const marker = `EDIT-${process.pid}-${++seq}`;
      for (let attempt = 0; attempt < 50; attempt++) {
        const before = fs.statSync(file, { bigint: true });
        const text = fs.readFileSync(file, 'utf8');
        pause(5 + Math.floor(rand() * 30));
        const next = text.replace(/\n?$/, `\n${marker}\n`);
        const now = fs.statSync(file, { bigint: true });
        if (now.ino !== before.ino || now.mtimeNs !== before.mtimeNs || now.size !== before.size) continue;
        const fd = fs.openSync(file, 'r+');
        fs.ftruncateSync(fd, 0);
        if (rand() < 0.5) fs.writeSync(fd, next, 0);
        else {
          const cut = Math.floor(next.length * (0.4 + rand() * 0.4));
          fs.writeSync(fd, next.slice(0, cut), 0);
          pause(1 + Math.floor(rand() * 8));
          fs.writeSync(fd, next.slice(cut), cut);
        }
        fs.closeSync(fd);
        note(`E ${id} ${marker}`);
        break;
      }
      pause(50 + Math.floor(rand() * 250));
    }
  }
  fs.closeSync(out);
}

main().catch((error) => {
  process.stderr.write(`${error.stack}\n`);
  process.exit(1);
});
