import type { StateCreator } from 'zustand/vanilla';
import type { ClassroomSlice } from './classroom';
import type { ProofSlice } from './proof';
import type { PuzzleSlice } from './puzzle';
import type { SettingsSlice } from './settings';
import type { UiSlice } from './ui';

/** The whole store: one object built from typed slices. */
export type Store = SettingsSlice & PuzzleSlice & UiSlice & ProofSlice & ClassroomSlice;

export type SliceCreator<T> = StateCreator<Store, [], [], T>;
