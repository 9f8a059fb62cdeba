function [t, start, len] = m2cu_cell_map(text, s, l, op)
%M2CU_CELL_MAP  strtrim, deblank, upper or lower (op) of an m2cu cell of texts (the text, and
% each piece's offset and length): the function applied to each text, as MATLAB applies it to
% each text of a cell, in the cell's orientation. A text of blanks only becomes 1-by-0, as every
% empty text of an m2cu cell (MATLAB's; Octave's is 0-by-0).
t = blanks(0);
start = s;
len = l;
for k = 1:numel(l)
  piece = text(s(k) + 1:s(k) + l(k));
  switch op
    case 'strtrim'
      kept = find(~isspace(piece));
      piece = piece(min([kept, numel(piece) + 1]):max([kept, 0]));
    case 'deblank'
      kept = find(~(isspace(piece) | piece == 0));
      piece = piece(1:max([kept, 0]));
    case 'upper'
      piece = upper(piece);
    otherwise
      piece = lower(piece);
  end
  start(k) = numel(t);
  len(k) = numel(piece);
  t = [t, piece];
end
end
