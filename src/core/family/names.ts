/**
 * Our pool of common English first names, by gender (180 male, 176 female).
 * A family draws names from it without repetition, so a family can hold up to
 * 180 men and 176 women.
 */
export const MALE_NAMES = [
  'Aaron', 'Adam', 'Adrian', 'Alan', 'Albert', 'Alex', 'Alfred', 'Andrew', 'Anthony', 'Arthur',
  'Austin', 'Barry', 'Ben', 'Bernard', 'Bill', 'Bob', 'Brad', 'Brandon', 'Brian', 'Bruce', 'Bryan',
  'Caleb', 'Calvin', 'Carl', 'Carlos', 'Chad', 'Charles', 'Chris', 'Christian', 'Clarence',
  'Colin', 'Craig', 'Curtis', 'Dale', 'Dan', 'Daniel', 'Darren', 'David', 'Dean', 'Dennis',
  'Derek', 'Dominic', 'Don', 'Douglas', 'Dylan', 'Earl', 'Eddie', 'Edgar', 'Edward', 'Eli',
  'Elliot', 'Eric', 'Ethan', 'Eugene', 'Evan', 'Felix', 'Floyd', 'Francis', 'Frank', 'Fred',
  'Gabriel', 'Gary', 'Gavin', 'George', 'Gerald', 'Gilbert', 'Glenn', 'Gordon', 'Graham', 'Grant',
  'Greg', 'Harold', 'Harry', 'Harvey', 'Henry', 'Herbert', 'Howard', 'Hugh', 'Ian', 'Isaac',
  'Ivan', 'Jack', 'Jacob', 'Jake', 'James', 'Jason', 'Jeff', 'Jeremy', 'Jerome', 'Jesse', 'Joe',
  'Joel', 'John', 'Jonah', 'Jordan', 'Joseph', 'Joshua', 'Julian', 'Justin', 'Keith', 'Ken',
  'Kevin', 'Kyle', 'Lance', 'Larry', 'Lawrence', 'Leo', 'Leon', 'Leonard', 'Lewis', 'Liam',
  'Lloyd', 'Logan', 'Louis', 'Lucas', 'Luke', 'Marcus', 'Mark', 'Martin', 'Matthew', 'Max',
  'Melvin', 'Michael', 'Miles', 'Mitchell', 'Nathan', 'Neil', 'Nicholas', 'Noah', 'Norman',
  'Oliver', 'Oscar', 'Owen', 'Patrick', 'Paul', 'Peter', 'Philip', 'Quentin', 'Ralph', 'Randy',
  'Ray', 'Raymond', 'Reuben', 'Richard', 'Robert', 'Roger', 'Roland', 'Ronald', 'Ross', 'Roy',
  'Russell', 'Ryan', 'Samuel', 'Scott', 'Sean', 'Seth', 'Simon', 'Stanley', 'Stephen', 'Steve',
  'Stuart', 'Ted', 'Terry', 'Theo', 'Thomas', 'Timothy', 'Todd', 'Tom', 'Tony', 'Travis', 'Trevor',
  'Tyler', 'Victor', 'Vincent', 'Walter', 'Warren', 'Wayne', 'Wesley', 'William', 'Zachary',
] as const;

export const FEMALE_NAMES = [
  'Abigail', 'Ada', 'Agnes', 'Alice', 'Alison', 'Amanda', 'Amber', 'Amelia', 'Amy', 'Andrea',
  'Angela', 'Anita', 'Ann', 'Anna', 'Audrey', 'Barbara', 'Beatrice', 'Becky', 'Bella', 'Bernice',
  'Beth', 'Betty', 'Beverly', 'Bonnie', 'Brenda', 'Bridget', 'Brittany', 'Camille', 'Carla',
  'Carmen', 'Carol', 'Caroline', 'Cassandra', 'Catherine', 'Cecilia', 'Charlotte', 'Chloe',
  'Christina', 'Claire', 'Clara', 'Colleen', 'Connie', 'Cynthia', 'Daisy', 'Dana', 'Daphne',
  'Deborah', 'Denise', 'Diana', 'Donna', 'Doris', 'Dorothy', 'Edith', 'Eileen', 'Elaine',
  'Eleanor', 'Elise', 'Ella', 'Ellen', 'Eloise', 'Emily', 'Emma', 'Erin', 'Esther', 'Eva',
  'Evelyn', 'Faith', 'Fiona', 'Florence', 'Frances', 'Gemma', 'Georgia', 'Gina', 'Gloria', 'Grace',
  'Gwen', 'Hannah', 'Harriet', 'Hazel', 'Heather', 'Helen', 'Holly', 'Ida', 'Irene', 'Iris',
  'Isabel', 'Ivy', 'Jane', 'Janet', 'Jasmine', 'Jean', 'Jennifer', 'Jessica', 'Jill', 'Joan',
  'Joanna', 'Josephine', 'Joy', 'Judith', 'Julia', 'June', 'Karen', 'Kate', 'Kathleen', 'Kelly',
  'Laura', 'Lauren', 'Leah', 'Lily', 'Linda', 'Lisa', 'Lois', 'Lorraine', 'Louise', 'Lucy',
  'Lydia', 'Mabel', 'Madeline', 'Maggie', 'Margaret', 'Maria', 'Marian', 'Marion', 'Martha',
  'Mary', 'Maya', 'Megan', 'Melissa', 'Mildred', 'Miriam', 'Molly', 'Monica', 'Nancy', 'Naomi',
  'Natalie', 'Nell', 'Nicole', 'Nina', 'Nora', 'Olive', 'Olivia', 'Paige', 'Pamela', 'Pauline',
  'Pearl', 'Penelope', 'Phoebe', 'Rachel', 'Rebecca', 'Regina', 'Rita', 'Rose', 'Ruth', 'Sabrina',
  'Sally', 'Samantha', 'Sandra', 'Sara', 'Sharon', 'Sheila', 'Sophie', 'Stella', 'Susan', 'Sylvia',
  'Tara', 'Teresa', 'Tina', 'Valerie', 'Vera', 'Veronica', 'Victoria', 'Violet', 'Virginia',
  'Wendy', 'Yvonne', 'Zoe',
] as const;
