/**
 * A function's code as `cdk synth` builds it: esbuild's API in the synth's own process, with the
 * settings `npm run bench` measures (function-bundling.ts), then the source map cut to our own
 * sources (own-source-map.ts); the asset is named by a hash of that output.
 *
 * Why not NodejsFunction, which builds the same bundle: it finds esbuild in node_modules beside a
 * package-lock.json and so runs it through `npx --no-install`, and the map's cut as a shell
 * command, three processes per function. Starting npm was most of a synth: 33 s for 16 functions
 * here, against about 15 s in process (docs/decisions/in-process-bundling.md). The hook is the
 * CDK's own: `BundlingOptions.local`, an `ILocalBundling` whose `tryBundle` returns true when it
 * built the asset, so Docker is never tried (AWS CDK API Reference, aws-cdk-lib "interface
 * ILocalBundling").
 */
import { AssetHashType, DockerImage } from 'aws-cdk-lib';
import { Code } from 'aws-cdk-lib/aws-lambda';
import { buildSync } from 'esbuild';
import { join } from 'node:path';
import { BUNDLE_FILE, BUNDLE_MODULE, esbuildOptionsFor } from './function-bundling';
import { writeOwnSourceMap } from './own-source-map';

/** The bundle of `entry` (relative to `projectRoot`), built locally, never in Docker. */
export function bundledCode(projectRoot: string, entry: string): Code {
  return Code.fromAsset(projectRoot, {
    assetHashType: AssetHashType.OUTPUT,
    bundling: {
      // Neither is run (local bundling builds, or throws); the CDK requires an image, and keys its
      // cache of assets on these options, so the command names the entry that tells them apart.
      image: DockerImage.fromRegistry('dummy'),
      command: ['esbuild', '--bundle', entry],
      local: {
        tryBundle(outputDir) {
          buildSync(esbuildOptionsFor({ [BUNDLE_MODULE]: join(projectRoot, entry) }, outputDir));
          writeOwnSourceMap(join(outputDir, `${BUNDLE_FILE}.map`));
          return true;
        },
      },
    },
  });
}
