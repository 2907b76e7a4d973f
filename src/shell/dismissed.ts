/**
 * Reads and writes the project's `.minions/dismissed.json` (protocol/dismissed.ts). Never through a
 * symbolic link (the folder or the file), never more than MAX_DISMISSED_BYTES; a broken file is reported
 * as it is and never written over, so nothing the user wrote is lost.
 */
import fs from 'node:fs';
import path from 'node:path';
import { DISMISSED_DIR, DISMISSED_FILE, MAX_DISMISSED_BYTES, dismissedText, parseDismissed, type Dismissal } from '../protocol/dismissed';
import { openDescriptor, realInside, WriteRefused, writeBeside } from './files';
import * as shellTexts from './texts';

export type DismissedState = { kind: 'none' } | { kind: 'ok'; dismissed: Dismissal[] } | { kind: 'broken'; problem: string };

const lstat = (p: string): fs.Stats | null => {
  try {
    return fs.lstatSync(p);
  } catch {
    return null;
  }
};

/** The project's dismissals: none (no file), the list, or what is wrong with the file. Never throws. */
export function readDismissed(root: string): DismissedState {
  const dir = path.join(root, DISMISSED_DIR);
  const file = path.join(root, DISMISSED_FILE);
  const dirStat = lstat(dir);
  if (dirStat === null) return { kind: 'none' };
  if (dirStat.isSymbolicLink()) return { kind: 'broken', problem: shellTexts.dismissed.linked(DISMISSED_DIR) };
  if (!dirStat.isDirectory()) return { kind: 'broken', problem: shellTexts.dismissed.notAFolder(DISMISSED_DIR) };
  const fileStat = lstat(file);
  if (fileStat === null) return { kind: 'none' };
  if (fileStat.isSymbolicLink()) return { kind: 'broken', problem: shellTexts.dismissed.linked(DISMISSED_FILE) };
  const opened = openDescriptor(file);
  if (opened.kind === 'absent') return { kind: 'none' };
  if (opened.kind === 'not-a-file') return { kind: 'broken', problem: shellTexts.dismissed.notAFile(DISMISSED_FILE) };
  if (opened.kind === 'unreadable') return { kind: 'broken', problem: shellTexts.dismissed.unreadable(DISMISSED_FILE) };
  try {
    if (opened.size > MAX_DISMISSED_BYTES) return { kind: 'broken', problem: shellTexts.dismissed.tooLarge(DISMISSED_FILE, MAX_DISMISSED_BYTES) };
    const text = fs.readFileSync(opened.fd, 'utf8');
    const read = parseDismissed(text);
    return read.ok ? { kind: 'ok', dismissed: read.dismissed } : { kind: 'broken', problem: shellTexts.dismissed.invalid(DISMISSED_FILE, read.problem) };
  } catch {
    return { kind: 'broken', problem: shellTexts.dismissed.unreadable(DISMISSED_FILE) };
  } finally {
    fs.closeSync(opened.fd);
  }
}

/**
 * Writes the dismissals (a new file beside the old one, then a rename: a link at the file is replaced,
 * not followed). `.minions` is made when missing; a link or a non-folder there is refused (WriteRefused).
 */
export function writeDismissed(root: string, dismissed: readonly Dismissal[]): void {
  const dir = path.join(root, DISMISSED_DIR);
  const stat = lstat(dir);
  if (stat === null) fs.mkdirSync(dir);
  else if (stat.isSymbolicLink()) throw new WriteRefused(shellTexts.dismissed.linked(DISMISSED_DIR));
  else if (!stat.isDirectory()) throw new WriteRefused(shellTexts.dismissed.notAFolder(DISMISSED_DIR));
  if (!realInside(dir, root)) throw new WriteRefused(shellTexts.files.linkedOut(DISMISSED_DIR, root));
  writeBeside(path.join(root, DISMISSED_FILE), dismissedText(dismissed), DISMISSED_FILE);
}
