export * from './layout';
export * from './geometry';
export { familyTreeSlots } from './familyTree';
