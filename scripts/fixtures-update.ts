// Regenerates the glob-sampling scenario's pinned files from an in-process run: the transcript and the
// request header (system prompt and tool schemas); and the pinned guidance renderings of fixtures/guidance.
// `npm run fixtures:update`; review the diff before committing.
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  codingDir,
  codingHeaderRequest,
  headerFiles,
  headerSize,
  inProcessAgent,
  recordingModel,
  runScenario,
  scenarioDir,
  scenarioWorkspace,
  templateTranscript,
} from "../test/acp-driver.ts";
import { codingTree } from "../fixtures/mod.ts";
import { guidanceDir, PINNED, renderPinned } from "../test/guidance-configs.ts";

const workspace = await scenarioWorkspace();
try {
  const { model, requests } = recordingModel();
  const { peer, done } = inProcessAgent({ model });
  const transcript = await runScenario(peer, workspace.cwd);
  await peer.close();
  await done;
  const files = { "transcript.expected.json": templateTranscript(transcript, workspace.cwd), ...headerFiles(requests[0]!, workspace.cwd) };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(scenarioDir, name), text);
  const { bytes, tokens } = headerSize(requests[0]!);
  console.log(`wrote ${Object.keys(files).join(", ")} in ${scenarioDir}`);
  console.log(`request header: ${bytes} bytes, about ${tokens} tokens (bytes / 4)`);
} finally {
  await workspace.dispose();
}

// The coding composition's header, as the first request of a session receives it.
const coding = await scenarioWorkspace(codingTree);
try {
  const request = await codingHeaderRequest(coding.cwd);
  for (const [name, text] of Object.entries(headerFiles(request, coding.cwd))) writeFileSync(join(codingDir, name), text);
  const { bytes, tokens } = headerSize(request);
  console.log(`wrote the coding header in ${codingDir}`);
  console.log(`coding request header: ${bytes} bytes, about ${tokens} tokens (bytes / 4)`);
} finally {
  await coding.dispose();
}

mkdirSync(guidanceDir, { recursive: true });
for (const [name, config] of Object.entries(PINNED)) writeFileSync(join(guidanceDir, `${name}.expected.md`), renderPinned(name, config));
console.log(`wrote ${Object.keys(PINNED).length} renderings in ${guidanceDir}`);
