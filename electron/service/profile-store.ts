// Connection profiles, kept across restarts in one JSON file written atomically.

import { randomBytes, randomUUID } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { Profile, ProfileInput } from '../../shared/api-types';
import { profileInputSchema } from '../../shared/profile-rules';
import { makeDirs } from '../session/make-dirs';

const storedSchema = z.object({
  profiles: z.array(profileInputSchema.required({ id: true })),
  /** Profiles that were connected when the app last ran: connected again at start. */
  connected: z.array(z.string()),
});
type Stored = z.infer<typeof storedSchema>;

/** Reads and writes `profiles.json` in the app's data folder. */
export class ProfileStore {
  private state: Stored = { profiles: [], connected: [] };
  private writing: Promise<void> = Promise.resolve();
  /** Set when the file existed but could not be read: shown once, and the file is left alone. */
  loadProblem: string | null = null;

  constructor(private readonly file: string | null) {}

  /** Loads the file; a missing file is an empty store, a corrupt one is reported and kept aside. */
  async load(): Promise<void> {
    if (!this.file) return;
    let text: string;
    try {
      text = await readFile(this.file, 'utf8');
    } catch {
      return;
    }
    try {
      this.state = storedSchema.parse(JSON.parse(text));
    } catch (err) {
      this.loadProblem = `could not read ${this.file} (${err instanceof Error ? err.message.split('\n')[0] : err}); starting with no saved connections`;
      await rename(this.file, `${this.file}.corrupt`).catch(() => undefined);
    }
  }

  list(): Profile[] {
    return this.state.profiles.map((p) => ({ ...p }));
  }

  get(id: string): Profile | undefined {
    return this.state.profiles.find((p) => p.id === id);
  }

  connectedIds(): string[] {
    return [...this.state.connected];
  }

  /** Adds a profile, or replaces the one with the same id. */
  async save(input: ProfileInput & { id?: string }): Promise<Profile> {
    const profile: Profile = { ...input, id: input.id ?? randomUUID().slice(0, 8) };
    const at = this.state.profiles.findIndex((p) => p.id === profile.id);
    if (at >= 0) this.state.profiles[at] = profile;
    else this.state.profiles.push(profile);
    await this.persist();
    return profile;
  }

  async remove(id: string): Promise<void> {
    this.state.profiles = this.state.profiles.filter((p) => p.id !== id);
    this.state.connected = this.state.connected.filter((c) => c !== id);
    await this.persist();
  }

  async setConnected(id: string, connected: boolean): Promise<void> {
    const others = this.state.connected.filter((c) => c !== id);
    this.state.connected = connected ? [...others, id] : others;
    await this.persist();
  }

  /**
   * Writes the state as it is now. Writes run one after another, each with a temp name of its own,
   * so concurrent saves never share (and rename away) one temp file and the last state wins.
   */
  private persist(): Promise<void> {
    const file = this.file;
    if (!file) return Promise.resolve();
    const write = this.writing.then(async () => {
      await makeDirs(path.dirname(file));
      const tmp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
      try {
        await writeFile(tmp, JSON.stringify(this.state, null, 2));
        await rename(tmp, file);
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    });
    // One failed write (a full disk) must not fail every later one.
    this.writing = write.catch(() => undefined);
    return write;
  }
}
