import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { storeContract } from "./contract.ts";
import { latestOfEachContract } from "./latest-of-each-contract.ts";
import { removeRevisionContract } from "./remove-contract.ts";

storeContract("memory", async () => new MemoryReleaseStore());
latestOfEachContract("memory", async () => new MemoryReleaseStore());
removeRevisionContract("memory", async () => new MemoryReleaseStore());
