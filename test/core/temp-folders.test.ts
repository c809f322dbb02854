import { foldersUnder } from '../../src/core/memory-files';
import { TEMP_FOLDERS, TEMP_TREES, tempFolders } from '../../src/core/vault';
import { REVIEW_FOLDER } from '../../src/core/review';
import { VERSIONS_FOLDER } from '../../src/core/versions';
import { FORGOTTEN_FOLDER } from '../../src/core/curation';
import { MERGED_FOLDER } from '../../src/core/merge/same-text';
import { COPIES_FOLDER } from '../../src/core/merge/sync-copies';
import { MemoryFileStore } from '../helpers/memory-ports';

// Where a sweep of killed writes' temp files looks (consolidation's sweep, doctor's temp-file
// check): the flat folders, and every folder under the memory folders, .engram/versions and
// .engram/forgotten at any depth (hidden folders and folders named like notes left out).

function store(paths: string[]): MemoryFileStore {
  const files = new MemoryFileStore();
  for (const p of paths) files.files.set(p, 'x');
  return files;
}

test('the trees are the memory folders, daily/, conflicts/, review/, the versions of texts, the forgotten memories and the merges\' copies', () => {
  expect(TEMP_TREES).toEqual(['episodic', 'semantic', 'decisions', 'archive', 'daily', 'conflicts', 'review', '.engram/versions', '.engram/forgotten', '.engram/merged', '.engram/sync-copies']);
  // the folders as the modules that write them name them
  expect([REVIEW_FOLDER, VERSIONS_FOLDER, FORGOTTEN_FOLDER, MERGED_FOLDER, COPIES_FOLDER].every((folder) => TEMP_TREES.includes(folder))).toBe(true);
  expect(TEMP_FOLDERS).toEqual(['episodic', 'semantic', 'decisions', 'archive', 'daily', 'conflicts', '.engram', '.engram/locks', '.engram/cache', '.']);
});

test('foldersUnder walks each root, each folder before its sub-folders by name, skipping hidden ones and ones named like notes', async () => {
  const files = store(['semantic/b/x.md', 'semantic/a/deep/y.md', 'semantic/.trash/z.md', 'semantic/Odd.md/w.md', 'episodic/n.md', 'semantic/a/.git/h']);
  expect(await foldersUnder(files, ['semantic', 'episodic', 'missing'])).toEqual(['semantic', 'semantic/a', 'semantic/a/deep', 'semantic/b', 'episodic', 'missing']);
});

test('foldersUnder takes a root a load listed from that listing, sub-folders included, without listing it again', async () => {
  const files = store(['episodic/ops/x.md', 'episodic/new/y.md']);
  const listedBy: string[] = [];
  const folders = files.folders.bind(files);
  files.folders = async (dir: string) => {
    listedBy.push(dir);
    return folders(dir);
  };
  // the listing's own order (a Map's insertion order) is not the walk's: sorted as the walk goes
  const known = new Map([['episodic/ops', []], ['episodic/ops/b', []], ['episodic', []], ['episodic/new', []], ['episodic/ops/a', []], ['episodic-old', []], ['semantic', []]]);
  expect(await foldersUnder(files, ['episodic', 'decisions'], known)).toEqual(['episodic', 'episodic/new', 'episodic/ops', 'episodic/ops/a', 'episodic/ops/b', 'decisions']);
  expect(listedBy).toEqual(['decisions']);
});

test('a folder that cannot be listed is given without sub-folders, and the walk goes on', async () => {
  const files = store(['semantic/locked/inner/x.md', 'semantic/open/y.md', 'decisions/d/z.md']);
  const folders = files.folders.bind(files);
  files.folders = async (dir: string) => {
    if (dir === 'semantic/locked') throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
    return folders(dir);
  };
  expect(await foldersUnder(files, ['semantic', 'decisions'])).toEqual(['semantic', 'semantic/locked', 'semantic/open', 'decisions', 'decisions/d']);
});

test('tempFolders: the flat folders first, then the trees at depth, each once', async () => {
  const files = store(['episodic/ops/x.md', '.engram/versions/mem-aaaaaaaaaaaa/1.json', '.engram/forgotten/episodic/Gone.md', 'archive/2025/old.md', 'daily/2026/2026-11-01.md', 'review/x.md', '.engram/sync-copies/episodic/Copy.md']);
  expect(await tempFolders(files)).toEqual([
    ...TEMP_FOLDERS,
    'episodic/ops',
    'archive/2025',
    'daily/2026',
    'review',
    '.engram/versions',
    '.engram/versions/mem-aaaaaaaaaaaa',
    '.engram/forgotten',
    '.engram/forgotten/episodic',
    '.engram/merged',
    '.engram/sync-copies',
    '.engram/sync-copies/episodic',
  ]);
});

test('foldersUnder goes 16 folders deep at most, as the memory walk does (deeper is a link loop or a mistake)', async () => {
  const chain = Array.from({ length: 18 }, (_, i) => `d${i + 1}`);
  const files = store([`semantic/${chain.join('/')}/x.md`]);
  const walked = await foldersUnder(files, ['semantic']);
  expect(walked).toEqual(Array.from({ length: 17 }, (_, i) => ['semantic', ...chain.slice(0, i)].join('/')));
  expect(walked.at(-1)).toBe(`semantic/${chain.slice(0, 16).join('/')}`);
});
