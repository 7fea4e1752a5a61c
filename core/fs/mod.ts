/**
 * The provider seam: the FileSystem interface every backend implements, its vocabulary, the closed
 * error-code set, and `createFileSystem`, which builds the seam from an adapter's native operations.
 *
 * @module
 */
export type { FsCapabilities } from "./capabilities.ts";
export type { FsDirectory, FsDriver, FsDriverHandle, FsDriverStat, FsProcessInfo, FsStagedFile } from "./driver.ts";
export { errnoError, errnoOf, isAbsentError, toFsError } from "./errno.ts";
export { FS_ERROR_CODES, FsError, isFsError, throwIfAborted } from "./errors.ts";
export type { FsErrorCode, FsErrorDetails } from "./errors.ts";
export { KeyedLock } from "./lock.ts";
export {
  baseName,
  compareBytes,
  compareUtf8,
  isAbsolutePath,
  isWithin,
  joinPath,
  normalizeAbsolute,
  parentPath,
  relativeWithin,
  resolvePath,
} from "./paths.ts";
export { cutName, lockName, stagingName } from "./names.ts";
export { localDiskStorage } from "./shared.ts";
export { createFileSystem } from "./provider.ts";
export type { CreateFileSystemOptions } from "./provider.ts";
export type {
  FileSystem,
  FsBytes,
  FsDirEntry,
  FsEntryType,
  FsFence,
  FsFileType,
  FsInfo,
  FsMkdirOptions,
  FsMkdirResult,
  FsMoveOptions,
  FsMoveResult,
  FsMutationGuard,
  FsMutationOptions,
  FsPathInfo,
  FsReadStream,
  FsRemoveOptions,
  FsRemoveResult,
  FsReadStreamOptions,
  FsResolveOptions,
  FsSignalOptions,
  FsTarget,
  FsTargetKey,
  FsVersion,
  FsWriteData,
  FsWriteGuard,
  FsWriteOptions,
  FsWriteResult,
} from "./types.ts";
export * from "./overlay/mod.ts";
