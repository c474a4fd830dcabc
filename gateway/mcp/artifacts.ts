// Artifact references in a run's result, as MCP sees them: which references a result holds, the
// resource URI of each (bound to the run: `artifact://<task id>/<artifact id>`, so it names nothing
// outside a run the caller owns), the resource_link block an answer carries, and the resource a
// resources/read or resources/list answers. Pure.
import { ARTIFACT_ID_PATTERN } from '../../common/artifact-store.ts';
import { ARTIFACT_REFERENCE_TYPE, type ArtifactReference } from '../../workflows/mcp-contract.ts';

const ARTIFACT_URI_SCHEME = 'artifact:';

const SHA256_HEX = /^[0-9a-f]{64}$/;

/** Whether `value` is a well-formed artifact reference (anything else is plain result data). */
export function isArtifactReference(value: unknown): value is ArtifactReference {
  const ref = value as Partial<ArtifactReference> | null;
  return (
    typeof ref === 'object' &&
    ref !== null &&
    ref.type === ARTIFACT_REFERENCE_TYPE &&
    typeof ref.id === 'string' &&
    ARTIFACT_ID_PATTERN.test(ref.id) &&
    typeof ref.name === 'string' &&
    typeof ref.contentType === 'string' &&
    Number.isSafeInteger(ref.size) &&
    (ref.size ?? -1) >= 0 &&
    typeof ref.sha256 === 'string' &&
    SHA256_HEX.test(ref.sha256) &&
    typeof ref.expiresAt === 'string' &&
    !Number.isNaN(Date.parse(ref.expiresAt))
  );
}

/**
 * The references a result holds: the result itself, or the values of its top-level fields and the
 * elements of top-level arrays. Deeper ones are plain data (the contract names these places only).
 */
export function artifactReferences(result: unknown): ArtifactReference[] {
  if (isArtifactReference(result)) return [result];
  if (typeof result !== 'object' || result === null) return [];
  const values = Array.isArray(result) ? result : Object.values(result);
  return values.flatMap((value) =>
    isArtifactReference(value) ? [value] : Array.isArray(value) ? value.filter(isArtifactReference) : [],
  );
}

export function artifactUri(taskId: string, artifactId: string): string {
  return `${ARTIFACT_URI_SCHEME}//${taskId}/${artifactId}`;
}

/** The task and artifact a URI names; undefined for anything not of the gateway's own form. */
export function parseArtifactUri(uri: string): { taskId: string; artifactId: string } | undefined {
  const match = /^artifact:\/\/([A-Za-z0-9_.~-]{1,200})\/([A-Za-z0-9_-]+)$/.exec(uri);
  if (!match || !ARTIFACT_ID_PATTERN.test(match[2] as string)) return undefined;
  return { taskId: match[1] as string, artifactId: match[2] as string };
}

/** Whether the artifact is past its expiry at `now`. */
export function isExpired(ref: ArtifactReference, now: number): boolean {
  return Date.parse(ref.expiresAt) <= now;
}

/** The resource_link content block of an answer. */
export function resourceLink(taskId: string, ref: ArtifactReference) {
  return {
    type: 'resource_link' as const,
    uri: artifactUri(taskId, ref.id),
    name: ref.name,
    mimeType: ref.contentType,
    size: ref.size,
    description: `${ref.name}: ${ref.size} bytes of ${ref.contentType}, sha256 ${ref.sha256}, until ${ref.expiresAt}; read it with resources/read`,
  };
}

/** What structuredContent says of each artifact: where to read it and what to expect. */
export function artifactSummary(taskId: string, ref: ArtifactReference) {
  return {
    uri: artifactUri(taskId, ref.id),
    name: ref.name,
    mimeType: ref.contentType,
    size: ref.size,
    sha256: ref.sha256,
    expiresAt: ref.expiresAt,
  };
}

/** A resources/list entry. */
export function listedResource(taskId: string, ref: ArtifactReference) {
  return {
    uri: artifactUri(taskId, ref.id),
    name: ref.name,
    mimeType: ref.contentType,
    size: ref.size,
  };
}

/** resources/read's contents: the bytes as base64 (`blob`), whatever their type. */
export function resourceContents(taskId: string, ref: ArtifactReference, bytes: Buffer) {
  const uri = artifactUri(taskId, ref.id);
  return { uri, mimeType: ref.contentType, blob: bytes.toString('base64') };
}
