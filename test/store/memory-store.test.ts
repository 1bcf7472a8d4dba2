import { MemoryReleaseStore } from "../../shared/store/memory-store.ts";
import { storeContract } from "./contract.ts";

storeContract("memory", async () => new MemoryReleaseStore());
