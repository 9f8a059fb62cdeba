function [t, start, len] = m2cu_cell_map(text, s, l, op)
%M2CU_CELL_MAP  strtrim, deblank, upper or lower (op) of an m2cu cell of texts (the text, and
% each piece's offset and length): the function applied to each text, as MATLAB applies it to
% each text of a cell, in the cell's orientation. A text of blanks only becomes 1-by-0, as every
% empty text of an m2cu cell (MATLAB's; Octave's is 0-by-0).
switch op
  case 'strtrim'
    [t, start, len] = m2cu_cell_map_with(@trimmed, text, s, l);
  case 'deblank'
    [t, start, len] = m2cu_cell_map_with(@deblanked, text, s, l);
  case 'upper'
    [t, start, len] = m2cu_cell_map_with(@upper, text, s, l);
  otherwise
    [t, start, len] = m2cu_cell_map_with(@lower, text, s, l);
end
end

function piece = trimmed(piece)
% The text without its leading and trailing whitespace (1-by-0 when nothing is left).
kept = find(~isspace(piece));
piece = piece(min([kept, numel(piece) + 1]):max([kept, 0]));
end

function piece = deblanked(piece)
% The text without its trailing whitespace and nulls (1-by-0 when nothing is left).
kept = find(~(isspace(piece) | piece == 0));
piece = piece(1:max([kept, 0]));
end
