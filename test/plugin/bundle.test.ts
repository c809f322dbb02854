/**
 * @jest-environment jsdom
 */
import '../fakes/jsdom-globals';
import * as fs from 'node:fs';
import * as path from 'node:path';

/*
 * What the community store installs: main.js, manifest.json and styles.css, nothing else. The
 * plugin must load from those alone (the token table and the embedding runtime are downloaded on
 * first use), use no Node module, and stay small: 1.33 MB before (993 KB of it a tokenizer
 * table); the target is 400 KB. Its load time is printed.
 */
const MAIN = path.join(__dirname, '..', '..', 'dist', 'plugin', 'main.js');
const WORKER = path.join(__dirname, '..', '..', 'dist', 'plugin', 'embedding-worker.js');

it('main.js requires only what Obsidian provides, stays under 477 KB, and its load time is measured', () => {
  const code = fs.readFileSync(MAIN, 'utf8');
  // the embedding worker's code is inside main.js as text (started from a Blob, never required by
  // main.js): its own requires (Node fallbacks of onnxruntime-web, dead in a Worker) are not main.js's
  const worker = fs.readFileSync(WORKER, 'utf8');
  const count = (text: string, name: string) => text.split(`require("${name}")`).length - 1;
  const required = new Set([...code.matchAll(/\brequire\("([^"]+)"\)/g)].map((m) => m[1]!).filter((name) => count(code, name) > count(worker, name)));
  // Obsidian provides its API and its editor's CodeMirror 6 modules to plugins (nothing else)
  expect([...required].sort()).toEqual(['@codemirror/state', '@codemirror/view', 'obsidian']);
  // 449 KB at the time of writing: over the 400 KB target by 12 % (see the closing note); a guard against growth.
  // 465 KB with issue 15: the review commands (apply/reject through versions, the loop decision log)
  // and consolidation's pattern summaries add 15 KB; abstractive summaries stay out of the bundle.
  // 474 KB once the plugin runtime (store-installable embeddings) and consolidation's fault isolation joined them;
  // 473 KB after the synchronous ForceAtlas2 left (-6 KB); 475 KB with titles after typed links. What remains over 400 KB is the graph (sigma 89 KB,
  // graphology 60 KB, the layout worker 10 KB, events 6 KB) and formatting-preserving YAML edits (yaml 96 KB).
  // 478.7 KB with polarity per term on write (+2.6 KB: a reversed decision is a conflict, not a reinforcement).
  // 482.0 KB with identity by frontmatter id (issue 21: the id index, sub-folders, readable names: +3.3 KB).
  // 492.1 KB with supersession (issue 20: change detection on write, superseded ranking, relevance protection, context: +7.5 KB).
  // +5.4 KB with the first-run view (issue 21: what Engram writes and downloads, said before anything is written).
  // +1.2 KB with issue 22 (proposals fenced, a machine stamp on counting writes, consolidation texts merged by rule).
  // 503.1 KB with renames and copies in the plugin's index and the tier pass that asks (issue 21: +2.8 KB).
  // 504.5 KB with the model checked before the runtime is fetched, the keyboard rows and the index-backed creative draw (+1.4 KB).
  // The embedding worker (792 KB, transformers.js and onnxruntime-web's JavaScript) is built into
  // main.js since issue 21 (store review: no code outside the reviewed release files), which
  // takes main.js to 1,298.8 KB: 2.6x, 793 KB over the 505.5 KB guard. The guard stays on the
  // plugin's own code (main.js less the worker's text), and the whole file has its own ceiling.
  // 513.7 KB with links by name and link_ids, the link repair consolidation runs and readable-name rules (issue 21 core: +5.7 KB).
  // 515.7 KB with the frontmatter reader that needs no YAML parser for what Engram writes (issue 23: +2.0 KB);
  // 518.0 KB with issue 22's own-property field edits, indented id lines and version records (+2.3 KB).
  // 523.4 KB with the merge of a memory remembered again while its note was unreadable (issue 24: the
  // plugin's consolidation and doctor run it too, +5.4 KB).
  // 524.5 KB with each device's own use count, added up when sync conflict copies merge, and links
  // found by resonance named for their targets (issue 21: +1.1 KB).
  // 525.7 KB with the id index told of the moves consolidation makes (issue 23: +0.2 KB).
  // 526.5 KB with readable names on: purge removes links by name, patterns named after an episode,
  // copies judged beside their original, flow-mapping ids (issue 21: +0.8 KB).
  // 539.3 KB with the live recall index: edits, additions and deletions followed in place, the
  // engine built in slices, the catalog read in slices (issue 23, warm server: +12.6 KB).
  // 539.7 KB with timestamps in Engram's own form read without regular expressions (issue 23: +0.2 KB).
  // 542.5 KB with consolidation reading the vault once (its text and file version kept for the
  // plan, moves and tier writes: issue 23, first consolidate, +2.8 KB); 544.4 KB with room for
  // additions made ahead in slices, so that no addition copies the whole table (issue 23, warm server: +1.9 KB).
  // 548.7 KB with the write index remember and import decide from (issue 23, write path: +4.3 KB).
  // 549.9 KB with the memory folders walked once for the write index (scanMemoryFiles names the
  // entries that are not regular files: issue 23, write path: +1.0 KB).
  // 550.2 KB with spanTerms stepping over the days of a month or year span (a named year formatted
  // 365 days: issue 23, first recall, +0.2 KB) and ids.json searched by Horspool (+0.1 KB).
  // 550.9 KB with the plugin's catalog load in slices of at most a few ms (the cache parsed a chunk
  // at a time without joining its text, written a few hundred rows at a time, the listing sorted
  // in slices, the index's maps filled in slices: issue 23, warm server, +0.7 KB).
  // 553.2 KB with a remember's resonance index focused on its own words (postings of its terms
  // only, analyses decoded when compared: issue 23, write path, +2.0 KB over main's 551.2 KB).
  // 553.9 KB with Bm25Index.update (an edit re-indexes only the terms whose count changed, 50e2ed4:
  // +0.6 KB, landed without raising this line).
  // 554.8 KB with consolidation's load taking rows from the memory cache and link repair planning
  // without a memory's text (issue 23, nightly consolidation: +0.9 KB; the cache itself is
  // given by the headless runner only, the plugin's store tells no file versions).
  // 554.9 KB with the context budget grouped and the spread's ids ordered without ICU (the first
  // toLocaleString and localeCompare of a process start ICU: issue 23, cold context and touch, +0.4 KB).
  // 555.9 KB with the recall maps of every memory (row by id, by path, the catalog's rows) in 64
  // shards, so that no step rehashes a whole map past 65,536 entries (issue 23, warm server: +1.0 KB).
  // 556.5 KB with the last preload steps over 50 ms at 100k sliced (columns of strings one a step,
  // the association index and episode numbers in slices, sparse columns in doubling typed
  // arrays, the word index's terms sharded: issue 23, warm server, +0.6 KB).
  // 557.9 KB with a first run's scans by hand where the text allows (ASCII words for analysis
  // and entities, flat frontmatter lines, plain quoted values; the regular expressions stay as
  // the fallback: issue 23, first run, +1.4 KB).
  // +0.9 KB with the plugin's documents by id and ids by path sharded too (OrderedShardedMap:
  // issue 23, warm server).
  // 559.4 KB once those landed beside consolidation's rows for the files it writes (dbdb695:
  // updateKnown returns the memory as written; issue 23, nightly consolidation): the guards
  // were each raised against main before the others landed, 23 bytes over together.
  // 563.8 KB with the lean memory reader (the flat frontmatter Engram writes read into a memory in
  // one pass, the full reader the fallback), numbers that begin no date skipped by the date
  // finder and a first load's stats taken from its reads (issue 23, first recall: +4.3 KB).
  // 564.8 KB with an import's write path made lighter (issue 23, import: a created file's
  // write index row from what was rendered, ASCII value tokens by hand, terms put in rarity
  // order with one look-up each, renderMemoryFile without an array of pairs; +1.0 KB).
  // 565.4 KB with a whole BM25 index built at once in a plain Map and the words the date finder
  // never compares with as one token (issue 23, first recall: +0.5 KB).
  // 565.6 KB with Bm25Index.build reverted (no gain measured cold), clean paths resolved without
  // normalising and a first load's signatures hashed from its catalog rows (issue 23, first recall: +0.1 KB).
  // 565.7 KB with a consolidation's vectors read once (its update returns what it wrote) and its new
  // patterns written without a look-up of their ids (issue 23, consolidation at 100k: +0.1 KB).
  // 566.0 KB with a reinforcement looked up in the shortest posting list of a term that is not a
  // label word (issue 23, import: +0.3 KB).
  // 567.2 KB with a text's clauses and value tokens cut by hand when it is ASCII (issue 23, import:
  // +1.2 KB; the patterns stay for other texts), and link repair's one scan a memory (issue 23,
  // consolidation: +0.25 KB).
  // 568.6 KB with a pruned memory archived with its new tier in one step (Vault.moveMemoryRewriting,
  // the move's settling of a pair cut short; issue 23, consolidation: +1.1 KB).
  // 570.0 KB with analysis's word table (ASCII words looked up where they stand) and Porter2 kept
  // here with its regions computed only when a suffix is found (issue 23, first recall: +1.4 KB).
  // 570.6 KB with an import line checked once and a created file's row read from its text when
  // that is the body's text (issue 23, import: +0.6 KB).
  // 575.4 KB with embeddings.bin format 2 (an update appends its new rows, the index lists each
  // memory's row; format 1 still read) and clustering sketches kept between runs with the
  // four-rows-a-pass sketch test (issue 23, consolidation at 100k: +4.8 KB).
  // 575.7 KB with the vectors' rows copied a run of consecutive rows at a time (copyRows; issue 23,
  // consolidation at 100k: +0.2 KB).
  // 577.8 KB with polarity and value terms of an ASCII text read through the word table where
  // each word stands, and the empty sets of polarities and change signals shared (issue 23,
  // import: +2.1 KB; the per-word path stays for other texts).
  // 577.9 KB with the moves taking no lock each when the runner's locks can gate them all
  // (Locks.alone; the plugin's have no gate and take each lock as before; issue 23, first
  // consolidation: +0.1 KB).
  // 578.7 KB with a plain ASCII line titled and one tag normalised without the patterns and lists (issue 23, import: +0.7 KB).
  // 585.1 KB with clustering's WebAssembly SIMD kernel, assembled in cluster.ts (the sums of the
  // JavaScript to the last bit; vector clustering at 100k 3.6x less CPU on a first consolidate,
  // 2x less on the next night's: issue 23, +6.4 KB).
  // 586.3 KB with stored vectors kept where the bin has them until they are packed
  // (copyStoredRows) and new list fields appended by setFrontmatterFields' line path (issue 23,
  // consolidation at 100k: +1.1 KB).
  // 588.4 KB with a first recall's indexes made as the snapshot's arrays at once (Bm25ArraysBuilder,
  // frozenPartsFromDocs), entity words and date tokens read in place when the text is ASCII (issue 23,
  // first recall without its cache: +2.1 KB).
  // 588.9 KB with the memory cache saved in pieces (encodePieces; the plugin's store tells no
  // versions and saves none) and a consolidation's load listing each folder once (issue 23,
  // first consolidation: +0.4 KB).
  // 590.6 KB with a first recall's documents kept as their catalog rows (catalogDoc: no texts kept
  // alive), the catalog's rows encoded as the cache is written and bodyText read by hand (issue 23,
  // first recall without its cache: +1.7 KB); 591.4 KB with the catalog written in pieces through
  // encodePieces (the same issue: +0.8 KB, the plugin's store has no writeChunks and joins them).
  // 592.5 KB with clustering on the stored vectors where they are (vectorClusters' rows, storedArray,
  // appends into the room past the bin read) and the embedder's HTTP client narrowed to a POST
  // (issue 23, the 100k next night: +1.2 KB).
  // 592.7 KB with the engine build taking its documents as one copy (OrderedShardedMap.valuesArray;
  // issue 23, the plugin's longest turn at 100k: +0.2 KB).
  // 592.9 KB with a first recall's snapshot written in pieces (snapshotPieces, joinPieces) and its
  // episode index made from the word index's entries (Bm25ArraysBuilder.grouped; issue 23, first
  // recall without its cache: +0.2 KB); 593.8 KB with the flat frontmatter's decimals, plain words
  // and lists read by hand (the same issue: +0.8 KB).
  // 595.4 KB with ids.json's table of its rows by id (memory-files.ts: written by every refresh, the
  // plugin's too; read a few bytes at a time where the store reads parts of files, the runner's:
  // issue 23, cold touch, +1.6 KB); 595.7 KB with a touch's spread writing each neighbour from the
  // text it read (Vault.updateKnown) and the id index keeping the rows it looked up (+0.3 KB).
  // 596.8 KB with the cluster memo read by hand (cluster-memo.ts; the plugin consolidates too), the
  // update after clustering taking the hashes of the one before it (HashedSource) and one id-to-row
  // Map for each stored vectors (rowIndex) (issue 23, the 100k next night: +1.1 KB).
  // 598.4 KB with polarity's plain clauses (no set of affirmed terms: +0.6 KB), ASCII titles made
  // file names by hand (+0.3 KB), and supersession and conflict candidates bounded by counts in
  // the postings (+0.7 KB) (issue 23, import).
  // 598.7 KB with the consolidation's lock kept fresh by the run (HeldLock.still between its pieces,
  // long() for long runs: the plugin consolidates too; issue 23, first consolidate, +0.2 KB).
  // 599.3 KB with the frontmatter's fences read by hand, a run of words the date finder does not
  // look at made one token, and a first load reading each file without a promise where the store
  // can (issue 23, first recall, +0.6 KB: 599,259 bytes).
  // 601.1 KB (+1.7 KB) with a memory file rendered as pieces joined once (and its field-by-field
  // form kept for a memory missing a required field), a created_at already in formatTimestamp's
  // form kept as it is, and loops where map/filter made arrays of changing kinds (issue 23, import).
  // 601.4 KB (+0.3 KB: 601,302 bytes) with a first load keeping less of each memory (terms copied
  // out at their number, enum strings and a day's time terms shared; issue 23, first recall).
  // 601.6 KB with a memory archived from its memory-cache row with another tier read once and its
  // tier written in the move (consolidate.ts is the plugin's too, though its store tells no
  // versions and keeps no rows; issue 23, a night from rows: +0.2 KB, 601,467 bytes).
  // 602.0 KB (+0.4 KB: 601,900 bytes) with the recall engine's map of ids made at its first use
  // when the snapshot says ids are distinct, the listing compared as one text, reverse links filled
  // in steps of 1,024 links and topDocs without a pair a candidate (issue 23, cold recall).
  // 602.3 KB (+0.25 KB: 602,041 bytes) with a catalog document's links and its row's links and
  // co-access made by loops instead of map and join (issue 23, first recall: encode compiled once).
  // 607.9 KB (+5.3 KB: 607,604 bytes) with the write index's format 2 (columns cut from a few
  // strings, its row codec: write-index.ts is the plugin's too) and the entity scan's NAMELESS
  // shortcut (issue 23, remember and first recall).
  // 608.7 KB (+0.76 KB: 608,366 bytes) with findDates' startsNothing, the scan that answers a text
  // holding no word or number that can begin a date (dates.ts is the plugin's too: its recall
  // builds the same time terms; issue 23, first recall).
  // 609.2 KB (+0.48 KB: 608,573 -> 609,053 bytes) with a live recall index built with room for
  // half as many rows again (the first addition after a build copied every column: issue 23, warm server).
  // 609.4 KB (+0.15 KB: 609,205 bytes) with link and co-access columns spliced in place, and the reverse
  // links built again only for a change of links, in the arrays of the index they replace (issue 23, warm server).
  // 610.2 KB (+0.75 KB: 609,951 bytes) with link repair's linksStand, the check that lets a memory
  // whose links all stand go without rewriteLinks, and its names made once a file (link-repair.ts
  // is the plugin's too: its doctor and consolidation repair links; issue 23, first consolidate).
  // 610.3 KB (+0.33 KB: 610,284 bytes) with the id index's table sorted as strings, copies found
  // before they are sorted, degreeOf's map filled by a loop and an archived rewrite's memory
  // made from the one read (memory-files.ts and consolidate.ts are the plugin's too; issue 23,
  // first consolidate).
  // 610.7 KB (+0.6 KB: 610,130 -> 610,734 bytes) with the analyser telling findDates' startsNothing
  // answer in its pass over the words (wordDateCode; issue 23, first recall without its cache).
  // 611.0 KB (+0.30 KB: 610,734 -> 611,031 bytes) with degreeOf's short lists of partners,
  // linksStand's recorded link found without a string made for it, planClusters' map of every
  // memory made at its first group, and loadAll's one look-up a path (issue 23, first consolidate).
  // 611.8 KB (+0.75 KB: 611,079 -> 611,827 bytes) with scalarLineEdit's check of a flat
  // frontmatter's edit from its changed lines (flatEditHolds) and the temp sweep given the load's
  // listing (frontmatter.ts, memory-files.ts and vault.ts are the plugin's too; issue 23, first consolidate).
  // 612.2 KB (+0.39 KB: 611,827 -> 612,218 bytes) with temp files swept at any depth of the memory
  // folders, .engram/versions and .engram/forgotten (foldersUnder, tempFolders: the plugin's consolidation).
  // 612.4 KB (+0.2 KB: 612,218 -> 612,423 bytes) with the trees of daily/, conflicts/, review/ and the
  // merges' copies, supersession's check for another subject (ownWord) and import's superseded count.
  expect(fs.statSync(MAIN).size - fs.statSync(WORKER).size).toBeLessThan(612_700);
  expect(fs.statSync(MAIN).size).toBeLessThan(1_404_600); // the whole file: the plugin's code above plus the worker's 792 KB (raised with the line above)
  const times: number[] = [];
  for (let i = 0; i < 5; i++) {
    jest.isolateModules(() => {
      const t = performance.now();
      require(MAIN);
      times.push(performance.now() - t);
    });
  }
  times.sort((a, b) => a - b);
  console.log(`main.js: ${fs.statSync(MAIN).size} bytes, load (require, median of 5) ${times[2]!.toFixed(1)} ms`);
  expect(times[2]).toBeGreaterThan(0);
});
