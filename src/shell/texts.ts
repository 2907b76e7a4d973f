/** Texts of the imperative shell: writes refused because of what stands on the way, and file-system errors as sentences. */


/** Writes refused because of what stands on the way (src/shell/files.ts); `where` is the path as the user knows it. */
export const files = {
  linkedOut: (dir: string, base: string): string => `${dir} leads out of ${base} (a symbolic link on the way); nothing was written there`,
  agentsLinked: (agents: string): string => `${agents} is a symbolic link; minions writes only in a folder of its own there. Remove the link (or move it) and run the command again`,
  missingFolder: (dir: string): string => `the folder ${dir} does not exist; create it first, or name a file in a folder that exists`,
  notAFolder: (dir: string): string => `${dir} is not a folder`,
  isAFolder: (file: string): string => `${file} is a folder; name a file to write`,
  /** An error of the file system, as a sentence: what failed, on which path, without node's errno text. */
  failed: (err: NodeJS.ErrnoException): string => {
    const what = FS_ERRORS[err.code ?? ''] ?? 'failed';
    return err.path ? `${err.path}: ${what}` : `a file could not be written or read (${what})`;
  },
};

/** What is wrong with the project's dismissed findings file; the hooks and the CLI say it as it is and never write over it. */
export const dismissed = {
  linked: (where: string): string => `${where} is a symbolic link; minions reads and writes dismissals only in a real folder of the project. Replace the link with the folder it points to`,
  notAFolder: (where: string): string => `${where} is not a folder`,
  notAFile: (where: string): string => `${where} is not a regular file`,
  unreadable: (where: string): string => `${where} could not be read`,
  tooLarge: (where: string, max: number): string => `${where} is larger than ${max / 1024} KB; it was not read`,
  invalid: (where: string, problem: string): string => `${where} is not a valid dismissals file: ${problem}`,
};

const FS_ERRORS: Record<string, string> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a folder, not a file',
  ENOTDIR: 'a part of the path is not a folder',
  ENOENT: 'no such file or folder',
  EEXIST: 'something already stands there',
  ENOSPC: 'the disk is full',
  EDQUOT: 'the disk quota is spent',
  EROFS: 'the file system is read-only',
  ELOOP: 'too many symbolic links on the way',
  ENAMETOOLONG: 'the name is too long',
  EMFILE: 'too many open files',
  EBUSY: 'busy',
  EXDEV: 'on another file system',
};
