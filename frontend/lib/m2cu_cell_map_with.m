function [t, start, len] = m2cu_cell_map_with(f, text, s, l)
%M2CU_CELL_MAP_WITH  cellfun(f, c, 'UniformOutput', false) of an m2cu cell of texts (the text,
%   and each piece's offset and length) where f gives a text of each text: a cell of texts of
%   c's size.
t = blanks(0);
start = s;
len = l;
for k = 1:numel(l)
  piece = f(text(s(k) + 1:s(k) + l(k)));
  if ~ischar(piece)
    m2cu_refuse('`cellfun(f, c, ''UniformOutput'', false)` whose function gives no text: m2cu makes cells of texts only', ...
                'for one number per text, leave out ''UniformOutput'', false');
  end
  start(k) = numel(t);
  len(k) = numel(piece);
  t = [t, piece];
end
end
