/**
 * The registered studies' definitions, as the whole server reads them: parsed once, through the
 * defaults of their kind (a study registered by an earlier version lacks the settings added
 * since: the minutes to the first answer, participation…), and cached here only. The cache is
 * keyed by what is stored (token and text), so a study replaced or edited in the database is
 * read again at its next lookup.
 */
import { withDefaults, type StudyDefinition } from '../src/study/definition/definition';
import type { ResultTables, StoredStudy } from './db/resultTables';

/** A registered study: its canonical link token and its definition (with defaults). */
export interface RegisteredStudy {
  readonly token: string;
  readonly def: StudyDefinition;
  /** Its condition ids, for the rows' check. */
  readonly conditions: ReadonlySet<string>;
}

interface Cached extends RegisteredStudy {
  readonly text: string;
}

export class StudyRegistry {
  private readonly cache = new Map<string, Cached>();

  constructor(private readonly tables: ResultTables) {}

  /** The registered study `studyId`, or undefined. */
  get(studyId: string): RegisteredStudy | undefined {
    const stored = this.tables.study(studyId);
    return stored && this.read(studyId, stored);
  }

  /** A registered study from its stored record (read by a listing), through the same cache. */
  read(studyId: string, stored: StoredStudy): RegisteredStudy {
    const cached = this.cache.get(studyId);
    if (cached && cached.token === stored.token && cached.text === stored.definition) return cached;
    const def = withDefaults(JSON.parse(stored.definition) as Partial<StudyDefinition>);
    const fresh = {
      token: stored.token,
      text: stored.definition,
      def,
      conditions: new Set(def.conditions.map((c) => c.id)),
    };
    this.cache.set(studyId, fresh);
    return fresh;
  }

  /** The registered study's link token (no parsing), or undefined. */
  token(studyId: string): string | undefined {
    return this.tables.study(studyId)?.token;
  }

  /**
   * The definitions exactly as registered (one study, or all), by id, without the defaults added
   * since: the psych-DS materials are the definition that was registered, byte for byte.
   */
  asRegistered(studyId?: string): StudyDefinition[] {
    return this.tables.definitions(studyId).map((text) => JSON.parse(text) as StudyDefinition);
  }
}
