export { ParticipantApp } from './ParticipantApp';
